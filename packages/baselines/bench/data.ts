import { createRecordStore, type RecordStore, uniformSchema } from "@calm-ldp/marginal-algebra";
import { createBernoulli, type Rng } from "@calm-ldp/random";

/**
 * n records of d i.i.d. Bernoulli(p) bits (Cormode et al.'s synthetic data), drawn
 * exactly from `rng` (one word per bit against an integer threshold). O(n d).
 */
export function bernoulliStore(rng: Rng, n: number, d: number, p: number): RecordStore {
  const bit = createBernoulli(p);
  const columns: Uint8Array[] = [];
  const words = new Uint32Array(n);
  for (let a = 0; a < d; a++) {
    rng.fill(words);
    const column = new Uint8Array(n);
    for (let r = 0; r < n; r++) column[r] = bit.fromWord(words[r]!, rng) ? 1 : 0;
    columns.push(column);
  }
  return createRecordStore(uniformSchema(d), { columns });
}
