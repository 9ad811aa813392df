import type { Rng } from "./api.js";
import { fail } from "./errors.js";

/**
 * A sampler of indices with probability proportional to `weights` (Walker's alias
 * method, Vose's stable construction): O(cells) set-up, O(1) per draw. For
 * simulations and data generation; probabilities are exact up to double rounding
 * of the normalised weights. Not for client-side privacy-critical draws.
 */
export function discreteSampler(weights: ArrayLike<number>): (rng: Rng) => number {
  const cells = weights.length;
  if (cells === 0) fail("discreteSampler", "weights must not be empty", cells);
  let total = 0;
  for (let i = 0; i < cells; i++) {
    const w = weights[i]!;
    if (!(w >= 0) || !Number.isFinite(w)) fail("discreteSampler", `weights[${i}] must be finite and >= 0`, w);
    total += w;
  }
  if (!(total > 0)) fail("discreteSampler", "weights must have a positive sum", total);
  const probability = new Float64Array(cells);
  const alias = new Uint32Array(cells);
  const scaled = new Float64Array(cells);
  const small: number[] = [];
  const large: number[] = [];
  for (let i = 0; i < cells; i++) {
    scaled[i] = (weights[i]! * cells) / total;
    (scaled[i]! < 1 ? small : large).push(i);
  }
  while (small.length > 0 && large.length > 0) {
    const s = small.pop()!;
    const l = large.pop()!;
    probability[s] = scaled[s]!;
    alias[s] = l;
    scaled[l] = scaled[l]! + scaled[s]! - 1;
    (scaled[l]! < 1 ? small : large).push(l);
  }
  for (const i of large) probability[i] = 1;
  for (const i of small) probability[i] = 1;
  return (rng) => {
    const u = rng.nextFloat() * cells;
    const column = Math.floor(u);
    return u - column < probability[column]! ? column : alias[column]!;
  };
}
