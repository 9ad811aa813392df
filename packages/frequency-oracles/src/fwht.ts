/**
 * In-place fast Walsh-Hadamard transform, unnormalised:
 * `out[a] = sum_y (-1)^{popcount(a & y)} in[y]` for a length that is a power of
 * two. O(K log K). (A local copy: this package sits below `@calm-ldp/hadamard`.)
 */
export function walshHadamard(values: Float64Array): Float64Array {
  const size = values.length;
  for (let half = 1; half < size; half <<= 1) {
    for (let block = 0; block < size; block += half << 1) {
      for (let i = block; i < block + half; i++) {
        const a = values[i]!;
        const b = values[i + half]!;
        values[i] = a + b;
        values[i + half] = a - b;
      }
    }
  }
  return values;
}
