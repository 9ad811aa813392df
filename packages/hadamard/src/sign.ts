import { fail } from "./errors.js";

/**
 * The Hadamard character of a binary record at `alpha`: `(-1)^{|j ∧ alpha|}` =
 * `(-1)^{sum_{a in alpha} record[a]}`, the value an InpHT client perturbs
 * (../../../docs/algorithms.md#hadamard-methods). `record[a]` must be 0 or 1. O(|alpha|).
 */
export function hadamardSign(record: ArrayLike<number>, alpha: ArrayLike<number>): 1 | -1 {
  let parity = 0;
  for (let i = 0; i < alpha.length; i++) {
    const value = record[alpha[i]!];
    if (value !== 0 && value !== 1) {
      fail("hadamardSign", `record[${alpha[i]}] must be 0 or 1 (binary attributes)`, value);
    }
    parity ^= value;
  }
  return parity === 0 ? 1 : -1;
}
