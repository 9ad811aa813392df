import { checkAttributes, log2Length } from "./check.js";
import { fail } from "./errors.js";

/**
 * The marginal over `beta` of a full binary table over `d` attributes:
 * `M_beta[gamma] = sum_{j : j restricted to beta = gamma} table[j]`. Cell order is
 * the shared mixed-radix order (attribute 0 most significant) for both tables:
 * attribute `a` is bit `d - 1 - a` of `j`, and `beta[i]` is bit `k - 1 - i` of
 * `gamma`. Units follow the input (fractions or counts). O(2^d + k 2^{d/2}): the
 * bit gathering uses two lookup tables over the halves of `j`. Writes into `out`
 * (length 2^|beta|, overwritten) when given.
 */
export function marginalizeBinary(
  table: ArrayLike<number>,
  d: number,
  beta: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  const bits = log2Length("marginalizeBinary", "table", table.length);
  if (bits !== d) fail("marginalizeBinary", `table.length must be 2^d = 2^${d}`, table.length);
  const k = checkAttributes("marginalizeBinary", "beta", beta, d);
  const cells = 1 << k;
  if (out !== undefined && out.length !== cells)
    fail("marginalizeBinary", `out.length must be 2^|beta| = ${cells}`, out.length);
  const result = out ?? new Float64Array(cells);
  result.fill(0);
  const lowBits = d >>> 1;
  const highBits = d - lowBits;
  const low = new Int32Array(1 << lowBits);
  const high = new Int32Array(1 << highBits);
  for (let i = 0; i < k; i++) {
    const bit = d - 1 - beta[i]!; // position in j
    const local = 1 << (k - 1 - i); // position in gamma
    if (bit < lowBits) {
      for (let x = 0; x < low.length; x++) if ((x >>> bit) & 1) low[x]! |= local;
    } else {
      for (let x = 0; x < high.length; x++) if ((x >>> (bit - lowBits)) & 1) high[x]! |= local;
    }
  }
  const lowMask = (1 << lowBits) - 1;
  for (let j = 0; j < table.length; j++) result[low[j & lowMask]! | high[j >>> lowBits]!]! += table[j]!;
  return result;
}
