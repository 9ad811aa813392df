import { nextKSubset } from "@calm-ldp/random";
import { type GaloisField, galoisField } from "./galois-field.js";

/** Every r-dimensional subspace of GF(q)^n, each as the list of its q^r vectors (coded in base q). */
function linearSubspaces(field: GaloisField, n: number, r: number): number[][] {
  const q = field.q;
  const subspaces: number[][] = [];
  const pivots = Array.from({ length: r }, (_, i) => i);
  const encode = (vector: number[]) => vector.reduce((code, digit, i) => code + digit * q ** i, 0);
  for (;;) {
    // Free entries of the reduced row echelon form: row i, columns c > pivots[i] that are not pivots.
    const free: [number, number][] = [];
    for (let i = 0; i < r; i++)
      for (let c = pivots[i]! + 1; c < n; c++) if (!pivots.includes(c)) free.push([i, c]);
    const assignments = q ** free.length;
    for (let a = 0; a < assignments; a++) {
      const rows = Array.from({ length: r }, (_, i) => {
        const row = new Array<number>(n).fill(0);
        row[pivots[i]!] = 1;
        return row;
      });
      let rest = a;
      for (const [i, c] of free) {
        rows[i]![c] = rest % q;
        rest = Math.floor(rest / q);
      }
      const span: number[] = [];
      for (let coefficients = 0; coefficients < q ** r; coefficients++) {
        const vector = new Array<number>(n).fill(0);
        let c = coefficients;
        for (let i = 0; i < r; i++) {
          const scalar = c % q;
          c = Math.floor(c / q);
          if (scalar === 0) continue;
          for (let j = 0; j < n; j++) vector[j] = field.add(vector[j]!, field.mul(scalar, rows[i]![j]!));
        }
        span.push(encode(vector));
      }
      subspaces.push(span);
    }
    if (!nextKSubset(pivots, n)) return subspaces;
  }
}

/**
 * The j-flats of the affine geometry AG(m, q) (q a prime power): the cosets of the
 * j-dimensional subspaces of GF(q)^m, points numbered by their base-q code. Any
 * j + 1 points lie in a j-flat, so the flats cover every t-subset, t <= j + 1, with
 * blocks of q^j points; for j = 1 they form S(2, q, q^m), for q = 2 and j = 2 the
 * SQS(2^m), and for t = j + 1 they are often optimal (e.g. C(16, 8, 4) = 30).
 * q^{m-j} [m choose j]_q blocks. O(blocks q^j m).
 * @internal
 */
export function affineFlats(q: number, m: number, j: number): number[][] {
  const field = galoisField(q);
  const size = q ** m;
  const flats: number[][] = [];
  const addCodes = (x: number, y: number) => {
    let code = 0;
    for (let i = 0, scale = 1; i < m; i++, scale *= q) {
      code += field.add(Math.floor(x / scale) % q, Math.floor(y / scale) % q) * scale;
    }
    return code;
  };
  for (const subspace of linearSubspaces(field, m, j)) {
    const covered = new Uint8Array(size);
    for (let shift = 0; shift < size; shift++) {
      if (covered[shift]) continue;
      const flat = subspace.map((x) => addCodes(x, shift));
      for (const p of flat) covered[p] = 1;
      flats.push(flat);
    }
  }
  return flats;
}

/**
 * The j-dimensional subspaces of the projective geometry PG(m, q) (q a prime
 * power), as sets of points (the 1-dimensional subspaces of GF(q)^{m+1}, numbered
 * in the order of their normalised code). Any j + 1 points lie in one, so they
 * cover every t-subset, t <= j + 1, with blocks of (q^{j+1} - 1)/(q - 1) points; for
 * j = 1 they form S(2, q + 1, (q^{m+1} - 1)/(q - 1)) (projective planes, STS(2^n - 1)).
 * O(blocks q^{j+1} m).
 * @internal
 */
export function projectiveSubspaces(q: number, m: number, j: number): number[][] {
  const field = galoisField(q);
  const n = m + 1;
  // Point index of every nonzero vector: normalise so the first nonzero coordinate is 1.
  const pointOf = new Map<number, number>();
  const normalisedCodes: number[] = [];
  for (let code = 1; code < q ** n; code++) {
    const digits = Array.from({ length: n }, (_, i) => Math.floor(code / q ** i) % q);
    const lead = digits.find((d) => d !== 0)!;
    if (lead === 1) {
      pointOf.set(code, normalisedCodes.length);
      normalisedCodes.push(code);
    }
  }
  const normalise = (code: number) => {
    const digits = Array.from({ length: n }, (_, i) => Math.floor(code / q ** i) % q);
    const inverse = field.inv(digits.find((d) => d !== 0)!);
    return digits.reduce((sum, d, i) => sum + field.mul(d, inverse) * q ** i, 0);
  };
  const blocks: number[][] = [];
  for (const subspace of linearSubspaces(field, n, j + 1)) {
    const points = new Set<number>();
    for (const code of subspace) if (code !== 0) points.add(pointOf.get(normalise(code))!);
    blocks.push([...points]);
  }
  return blocks;
}
