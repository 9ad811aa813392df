/**
 * The Steiner quadruple system SQS(2^m) of the planes of the affine geometry
 * AG(m, 2): the 4-subsets {a, b, c, a ⊕ b ⊕ c} of {0..2^m - 1}. Every triple lies in
 * exactly one, C(2^m, 3)/4 blocks: S(3, 4, 2^m), an optimal C(2^m, 4, 3). O(8^m).
 * @internal
 */
export function booleanQuadrupleSystem(v: number): number[][] | undefined {
  if (v < 4 || (v & (v - 1)) !== 0) return undefined;
  const blocks: number[][] = [];
  for (let a = 0; a < v; a++) {
    for (let b = a + 1; b < v; b++) {
      for (let c = b + 1; c < v; c++) {
        const d = a ^ b ^ c;
        if (d > c) blocks.push([a, b, c, d]);
      }
    }
  }
  return blocks;
}

/**
 * The doubling construction SQS(v) -> SQS(2v) (Lindner and Rodger, "Design
 * Theory", §5): points (x, i) numbered x + v i, i in {0, 1}; the blocks of the
 * SQS(v) on each level, and {(x,0), (y,0), (z,1), (w,1)} for every two pairs
 * {x, y}, {z, w} of the same 1-factor F_j of a 1-factorisation of K_v (the
 * round-robin one). `sqs` must be an SQS(v), v even; 2|SQS(v)| + (v - 1)(v/2)^2
 * blocks. O(v^3).
 * @internal
 */
export function doubleQuadrupleSystem(sqs: readonly (readonly number[])[], v: number): number[][] {
  const blocks: number[][] = [];
  for (const block of sqs) {
    blocks.push(block.slice());
    blocks.push(block.map((x) => x + v));
  }
  for (const factor of oneFactorisation(v)) {
    for (const [x, y] of factor) for (const [z, w] of factor) blocks.push([x, y, z + v, w + v]);
  }
  return blocks;
}

/** The round-robin 1-factorisation of K_v (v even): v - 1 perfect matchings. */
function oneFactorisation(v: number): [number, number][][] {
  const n = v - 1;
  const factors: [number, number][][] = [];
  for (let i = 0; i < n; i++) {
    const factor: [number, number][] = [[i, n]];
    for (let j = 1; j <= (n - 1) / 2; j++) factor.push([(i + j) % n, (i - j + n) % n]);
    factors.push(factor);
  }
  return factors;
}
