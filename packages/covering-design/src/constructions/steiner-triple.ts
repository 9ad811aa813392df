/**
 * A Steiner triple system STS(v), v ≡ 1 or 3 (mod 6): triples such that every pair
 * of points lies in exactly one, v(v-1)/6 of them, an optimal C(v, 3, 2).
 * Bose's construction for v = 6n + 3 (points Z_{2n+1} x Z_3, with the idempotent
 * commutative quasigroup x∘y = (x + y)/2 mod 2n+1) and Skolem's for v = 6n + 1
 * (points Z_{2n} x Z_3 plus ∞, with the half-idempotent commutative quasigroup
 * x∘y = floor(((x + y) mod 2n) / 2) + n((x + y) mod 2)); Lindner and Rodger,
 * "Design Theory", §1.2-1.3. Point (x, i) is numbered x + (2n+1) i (Bose) or
 * x + 2n i with ∞ = v - 1 (Skolem).
 * Returns undefined for other v. O(v^2).
 * @internal
 */
export function steinerTripleSystem(v: number): number[][] | undefined {
  if (v % 6 === 3) return bose((v - 3) / 6);
  if (v % 6 === 1 && v > 1) return skolem((v - 1) / 6);
  return undefined;
}

function bose(n: number): number[][] {
  const order = 2 * n + 1;
  const half = n + 1; // the inverse of 2 modulo 2n + 1
  const point = (x: number, i: number) => x + order * i;
  const blocks: number[][] = [];
  for (let x = 0; x < order; x++) blocks.push([point(x, 0), point(x, 1), point(x, 2)]);
  for (let x = 0; x < order; x++) {
    for (let y = x + 1; y < order; y++) {
      const z = ((x + y) * half) % order;
      for (let i = 0; i < 3; i++) blocks.push([point(x, i), point(y, i), point(z, (i + 1) % 3)]);
    }
  }
  return blocks;
}

function skolem(n: number): number[][] {
  const order = 2 * n;
  const point = (x: number, i: number) => x + order * i;
  const infinity = 3 * order;
  const blocks: number[][] = [];
  const circ = (x: number, y: number) => {
    const s = (x + y) % order;
    return (Math.floor(s / 2) + n * (s % 2)) % order;
  };
  for (let x = 0; x < n; x++) blocks.push([point(x, 0), point(x, 1), point(x, 2)]);
  for (let x = 0; x < n; x++) {
    for (let i = 0; i < 3; i++) blocks.push([infinity, point(x + n, i), point(x, (i + 1) % 3)]);
  }
  for (let x = 0; x < order; x++) {
    for (let y = x + 1; y < order; y++) {
      for (let i = 0; i < 3; i++) blocks.push([point(x, i), point(y, i), point(circ(x, y), (i + 1) % 3)]);
    }
  }
  return blocks;
}
