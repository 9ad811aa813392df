import { createRecordStore, type RecordStore, type Schema, uniformSchema } from "@calm-ldp/marginal-algebra";
import { bernoulli, type Rng, uniformInt } from "@calm-ldp/random";

/**
 * Correlated test data: a Markov chain along the attributes. Attribute 0 is
 * uniform over its c values; attribute i copies attribute i-1 (mod c_i) with
 * probability `stay`, otherwise takes a uniform value. O(n d).
 * @internal test support
 */
export function markovStore(rng: Rng, n: number, cardinalities: readonly number[], stay = 0.7): RecordStore {
  const schema: Schema = cardinalities.every((c) => c === 2)
    ? uniformSchema(cardinalities.length)
    : {
        attributes: cardinalities.map((c, i) => ({
          name: `a${i}`,
          labels: Array.from({ length: c }, (_, v) => String(v)),
        })),
      };
  const columns = cardinalities.map(() => new Uint8Array(n));
  for (let r = 0; r < n; r++) {
    columns[0]![r] = uniformInt(rng, cardinalities[0]!);
    for (let i = 1; i < cardinalities.length; i++) {
      const c = cardinalities[i]!;
      columns[i]![r] = bernoulli(rng, stay) ? columns[i - 1]![r]! % c : uniformInt(rng, c);
    }
  }
  return createRecordStore(schema, { columns });
}
