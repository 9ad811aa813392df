import {
  createRecordStore,
  type MarginalTable,
  projectTable,
  type RecordStore,
  type Schema,
  uniformSchema,
} from "@calm-ldp/marginal-algebra";
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

/**
 * The largest disagreement between two views on their common attributes: the
 * maximum over view pairs and cells of |projection of one - projection of the
 * other| (0 for consistent views). O(m^2 |V|).
 * @internal test support
 */
export function maxViewDisagreement(views: readonly MarginalTable[]): number {
  let worst = 0;
  for (let a = 0; a < views.length; a++)
    for (let b = a + 1; b < views.length; b++) {
      const va = views[a]!;
      const vb = views[b]!;
      const common = va.attributes.filter((x) => vb.attributes.includes(x));
      const pa = projectTable(va, common).cells;
      const pb = projectTable(vb, common).cells;
      pa.forEach((x, i) => {
        worst = Math.max(worst, Math.abs(x - pb[i]!));
      });
    }
  return worst;
}

/**
 * Skewed binary test data: a Markov chain with per-attribute parameters. Attribute
 * 0 is 1 with probability p1[0]; attribute i copies attribute i-1 with probability
 * stay[i], else is 1 with probability p1[i]. Pairs of varying strength, skewed
 * marginals and (unlike the symmetric chain) 3-way interaction coefficients that
 * vary from triple to triple, all implied by the pairs (a chain has no 3-way
 * log-linear term). O(n d).
 * @internal test support
 */
export function skewedChainStore(
  rng: Rng,
  n: number,
  stay: readonly number[],
  p1: readonly number[],
): RecordStore {
  const d = p1.length;
  const columns = Array.from({ length: d }, () => new Uint8Array(n));
  for (let r = 0; r < n; r++) {
    columns[0]![r] = bernoulli(rng, p1[0]!) ? 1 : 0;
    for (let i = 1; i < d; i++)
      columns[i]![r] = bernoulli(rng, stay[i]!) ? columns[i - 1]![r]! : bernoulli(rng, p1[i]!) ? 1 : 0;
  }
  return createRecordStore(uniformSchema(d), { columns });
}

/**
 * Independent categorical attributes: attribute i takes value v with probability
 * `thousandths[i][v] / 1000` (each row sums to 1000), drawn exactly by comparing a
 * uniform integer in 0..999 with the cumulative thousandths. O(n d c).
 * @internal test support
 */
export function independentStore(
  rng: Rng,
  n: number,
  thousandths: readonly (readonly number[])[],
): RecordStore {
  const schema: Schema = {
    attributes: thousandths.map((row, i) => ({
      name: `a${i}`,
      labels: row.map((_, v) => String(v)),
    })),
  };
  const columns = thousandths.map(() => new Uint8Array(n));
  for (let r = 0; r < n; r++)
    thousandths.forEach((row, i) => {
      let u = uniformInt(rng, 1000);
      let v = 0;
      while (u >= row[v]!) u -= row[v++]!;
      columns[i]![r] = v;
    });
  return createRecordStore(schema, { columns });
}
