import type { FwhtOptions } from "./api.js";
import { fail } from "./errors.js";

/** Butterflies of strides below BLOCK run block by block, so a block stays in L1/L2 cache. */
const BLOCK = 1 << 11;

/**
 * In-place fast Walsh-Hadamard transform of `data` (length D = 2^m, m >= 0):
 * `data <- s * H data` with `H[a][j] = (-1)^{popcount(a & j)}` (Sylvester order,
 * the index bits are the coordinates), the form ../../../docs/algorithms.md#hadamard-methods uses:
 * transforming a distribution `p` over `{0,1}^d` gives `theta_alpha = (H p)[alpha]`.
 *
 * Scaling `s` (option `scaling`): `"none"` (default, unnormalised: `s = 1`),
 * `"orthonormal"` (`s = D^{-1/2}`, an involution) or `"inverse"` (`s = 1/D`, the
 * inverse of `"none"`). Cost O(D log D) additions, no allocation: strides below
 * 2^11 run within cache-sized blocks, larger strides two levels per pass (radix 4).
 * Returns `data`.
 */
export function fwht(data: Float64Array, options: FwhtOptions = {}): Float64Array {
  const size = data.length;
  if (size === 0 || (size & (size - 1)) !== 0 || size > 2 ** 30) {
    fail("fwht", "data.length must be a power of two in [1, 2^30]", size);
  }
  const scaling = options.scaling ?? "none";
  if (scaling !== "none" && scaling !== "orthonormal" && scaling !== "inverse") {
    fail("fwht", 'options.scaling must be "none", "orthonormal" or "inverse"', scaling);
  }
  const block = Math.min(size, BLOCK);
  for (let base = 0; base < size; base += block) transformBlock(data, base, block);
  let h = block;
  for (; h * 4 <= size; h *= 4) radix4Pass(data, 0, size, h);
  if (h < size) radix2Pass(data, 0, size, h);
  if (scaling !== "none") {
    const factor = scaling === "inverse" ? 1 / size : 1 / Math.sqrt(size);
    for (let i = 0; i < size; i++) data[i]! *= factor;
  }
  return data;
}

/** All levels h = 1, 2, ..., block/2 within data[base .. base + block). */
function transformBlock(data: Float64Array, base: number, block: number): void {
  const end = base + block;
  let h = 1;
  if (block >= 2) {
    for (let i = base; i < end; i += 2) {
      const x = data[i]!;
      const y = data[i + 1]!;
      data[i] = x + y;
      data[i + 1] = x - y;
    }
    h = 2;
  }
  for (; h * 4 <= block; h *= 4) radix4Pass(data, base, end, h);
  if (h < block) radix2Pass(data, base, end, h);
}

/** Levels h and 2h on data[start .. end) (a multiple of 4h long). */
function radix4Pass(data: Float64Array, start: number, end: number, h: number): void {
  for (let i = start; i < end; i += 4 * h) {
    for (let j = i, stop = i + h; j < stop; j++) butterfly4(data, j, h);
  }
}

/** Level h on data[start .. end) (a multiple of 2h long). */
function radix2Pass(data: Float64Array, start: number, end: number, h: number): void {
  for (let i = start; i < end; i += 2 * h) {
    for (let j = i, stop = i + h; j < stop; j++) {
      const x = data[j]!;
      const y = data[j + h]!;
      data[j] = x + y;
      data[j + h] = x - y;
    }
  }
}

/** Levels h and 2h at once on data[j], data[j + h], data[j + 2h], data[j + 3h]. */
function butterfly4(data: Float64Array, j: number, h: number): void {
  const a0 = data[j]!;
  const a1 = data[j + h]!;
  const a2 = data[j + 2 * h]!;
  const a3 = data[j + 3 * h]!;
  const s0 = a0 + a1;
  const d0 = a0 - a1;
  const s1 = a2 + a3;
  const d1 = a2 - a3;
  data[j] = s0 + s1;
  data[j + h] = d0 + d1;
  data[j + 2 * h] = s0 - s1;
  data[j + 3 * h] = d0 - d1;
}
