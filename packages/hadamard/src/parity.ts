/**
 * Parity (0 or 1) of the number of set bits of a 32-bit word: the exponent of a
 * Hadamard matrix entry, `H[a][j] = (-1)^{parity32(a & j)}`. O(1) (five shifts).
 */
export function parity32(x: number): number {
  x ^= x >>> 16;
  x ^= x >>> 8;
  x ^= x >>> 4;
  x ^= x >>> 2;
  x ^= x >>> 1;
  return x & 1;
}
