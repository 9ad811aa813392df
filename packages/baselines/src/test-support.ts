import {
  createRecordStore,
  createSchema,
  type RecordStore,
  type Schema,
  uniformSchema,
} from "@calm-ldp/marginal-algebra";
import { createBernoulli, type Rng, uniformInt } from "@calm-ldp/random";

/** @internal Test data: n records of d i.i.d. Bernoulli(p) bits. O(n d). */
export function bernoulliStore(rng: Rng, n: number, d: number, p: number): RecordStore {
  const bit = createBernoulli(p);
  const columns = Array.from({ length: d }, () => {
    const column = new Uint8Array(n);
    for (let r = 0; r < n; r++) column[r] = bit.sample(rng) ? 1 : 0;
    return column;
  });
  return createRecordStore(uniformSchema(d), { columns });
}

/** @internal A non-binary schema: cardinalities 3, 2, 4, 5 (bits 2, 1, 2, 3). */
export function mixedSchema(): Schema {
  return createSchema([3, 2, 4, 5].map((cardinality, i) => ({ name: `m${i}`, cardinality })));
}

/**
 * @internal Correlated non-binary test data over `schema`: attribute 0 uniform,
 * every later attribute equal to (previous value mod c) with probability 1/2,
 * otherwise uniform. O(n d).
 */
export function chainStore(rng: Rng, n: number, schema: Schema): RecordStore {
  const cards = schema.attributes.map((a) => a.labels.length);
  const rows: number[][] = [];
  for (let r = 0; r < n; r++) {
    const row: number[] = [];
    for (let a = 0; a < cards.length; a++) {
      const c = cards[a]!;
      row.push(a > 0 && uniformInt(rng, 2) === 0 ? row[a - 1]! % c : uniformInt(rng, c));
    }
    rows.push(row);
  }
  return createRecordStore(schema, { rows });
}

/** @internal Mean and (unbiased) variance of a sample. */
export function moments(values: readonly number[]): { mean: number; variance: number } {
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  const variance = values.reduce((s, x) => s + (x - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
}
