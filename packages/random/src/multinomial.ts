import type { Rng } from "./api.js";
import { binomial } from "./binomial.js";
import { fail } from "./errors.js";

/**
 * Multinomial(n, probabilities): counts of n independent draws over the cells,
 * by conditional binomials (cell i gets Binomial(remaining n, p_i / remaining
 * mass)). `probabilities` are non-negative weights, normalised here. O(cells)
 * binomial draws, each O(1) expected. Writes into `out` when given.
 */
export function multinomial(
  rng: Rng,
  n: number,
  probabilities: ArrayLike<number>,
  out: Float64Array = new Float64Array(probabilities.length),
): Float64Array {
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31)
    fail("multinomial", "n must be an integer in [0, 2^31]", n);
  const cells = probabilities.length;
  if (cells === 0) fail("multinomial", "probabilities must not be empty", cells);
  if (out.length !== cells) fail("multinomial", `out must have ${cells} cells`, out.length);
  let mass = 0;
  for (let i = 0; i < cells; i++) {
    const w = probabilities[i]!;
    if (!(w >= 0) || w === Number.POSITIVE_INFINITY)
      fail("multinomial", `probabilities[${i}] must be finite and >= 0`, w);
    mass += w;
  }
  if (!(mass > 0)) fail("multinomial", "probabilities must have a positive sum", mass);
  let remaining = n;
  let remainingMass = mass;
  for (let i = 0; i < cells; i++) {
    if (remaining === 0) {
      out[i] = 0;
      continue;
    }
    const w = probabilities[i]!;
    if (i === cells - 1) {
      out[i] = remaining;
      break;
    }
    const p = remainingMass > 0 ? Math.min(1, w / remainingMass) : 0;
    const count = binomial(rng, remaining, p);
    out[i] = count;
    remaining -= count;
    remainingMass -= w;
  }
  return out;
}
