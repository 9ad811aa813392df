import { galoisField, primePower } from "./galois-field.js";

/** Normalised nonzero vectors of GF(q)^3 (first nonzero coordinate 1): the q^2 + q + 1 points of PG(2, q). */
function projectivePoints(q: number): number[][] {
  const points: number[][] = [];
  for (let y = 0; y < q; y++) for (let z = 0; z < q; z++) points.push([1, y, z]);
  for (let z = 0; z < q; z++) points.push([0, 1, z]);
  points.push([0, 0, 1]);
  return points;
}

/** The lines of PG(2, q) as sets of indices into `points`; line [a, b, c] holds the points with a x + b y + c z = 0. */
function projectiveLines(q: number, points: number[][]): number[][] {
  const field = galoisField(q);
  const lines: number[][] = [];
  for (const [a, b, c] of points) {
    const line: number[] = [];
    points.forEach(([x, y, z], index) => {
      const value = field.add(field.add(field.mul(a!, x!), field.mul(b!, y!)), field.mul(c!, z!));
      if (value === 0) line.push(index);
    });
    lines.push(line);
  }
  return lines;
}

/**
 * The projective plane PG(2, q), q a prime power: v = q^2 + q + 1 points, as many
 * lines of k = q + 1 points, every pair of points on exactly one line: a Steiner
 * system S(2, q + 1, q^2 + q + 1), an optimal C(q^2+q+1, q+1, 2). Undefined when q is
 * not a prime power. O(q^4).
 * @internal
 */
export function projectivePlane(q: number): number[][] | undefined {
  if (!primePower(q)) return undefined;
  return projectiveLines(q, projectivePoints(q));
}

/**
 * The affine plane AG(2, q), q a prime power: points (x, y) in GF(q)^2 numbered
 * q x + y, lines y = m x + b and x = c: S(2, q, q^2), an optimal C(q^2, q, 2) with
 * q^2 + q blocks. Undefined when q is not a prime power. O(q^3).
 * @internal
 */
export function affinePlane(q: number): number[][] | undefined {
  if (!primePower(q)) return undefined;
  const field = galoisField(q);
  const lines: number[][] = [];
  for (let m = 0; m < q; m++) {
    for (let b = 0; b < q; b++) {
      lines.push(Array.from({ length: q }, (_, x) => q * x + field.add(field.mul(m, x), b)));
    }
  }
  for (let c = 0; c < q; c++) lines.push(Array.from({ length: q }, (_, y) => q * c + y));
  return lines;
}

/**
 * The Hermitian unital in PG(2, q^2), q a prime power: the q^3 + 1 absolute points of
 * x^{q+1} + y^{q+1} + z^{q+1} = 0, and the lines meeting them in q + 1 points:
 * S(2, q + 1, q^3 + 1) (for q = 3: S(2, 4, 28), 63 blocks), an optimal covering.
 * Points are renumbered 0..q^3. O(q^8).
 * @internal
 */
export function hermitianUnital(q: number): number[][] | undefined {
  if (!primePower(q)) return undefined;
  const order = q * q;
  const field = galoisField(order);
  const points = projectivePoints(order);
  const norm = (x: number) => field.pow(x, q + 1);
  const renumber = new Map<number, number>();
  points.forEach(([x, y, z], index) => {
    if (field.add(field.add(norm(x!), norm(y!)), norm(z!)) === 0) renumber.set(index, renumber.size);
  });
  const blocks: number[][] = [];
  for (const line of projectiveLines(order, points)) {
    const block = line.filter((index) => renumber.has(index)).map((index) => renumber.get(index)!);
    if (block.length === q + 1) blocks.push(block);
  }
  return blocks;
}
