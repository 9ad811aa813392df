/**
 * A finite field GF(q), q = p^m, as addition and multiplication tables over the
 * integers 0..q-1 (element = coefficients of a polynomial over GF(p) in base p;
 * 0 is zero, 1 is one). Small fields only (q <= 256).
 * @internal
 */
export interface GaloisField {
  readonly q: number;
  readonly p: number;
  readonly m: number;
  add(a: number, b: number): number;
  mul(a: number, b: number): number;
  neg(a: number): number;
  inv(a: number): number;
  pow(a: number, e: number): number;
}

/** `[p, m]` when q = p^m for a prime p, otherwise undefined. O(sqrt q). */
export function primePower(q: number): [number, number] | undefined {
  if (!Number.isInteger(q) || q < 2) return undefined;
  let p = 2;
  while (p * p <= q && q % p !== 0) p++;
  if (q % p !== 0) p = q;
  let m = 0;
  let rest = q;
  while (rest % p === 0) {
    rest /= p;
    m++;
  }
  return rest === 1 ? [p, m] : undefined;
}

const cache = new Map<number, GaloisField>();

/**
 * GF(q) for a prime power q <= 256, from the first monic irreducible polynomial of
 * degree m over GF(p) in the base-p order (found by trial division). Tables cost
 * O(q^2) once; the field is cached.
 * @internal
 */
export function galoisField(q: number): GaloisField {
  const cached = cache.get(q);
  if (cached) return cached;
  const pm = primePower(q);
  if (!pm || q > 256) throw new RangeError(`galoisField: q must be a prime power <= 256 (got ${q})`);
  const [p, m] = pm;
  const digits = (x: number): number[] => Array.from({ length: m }, (_, i) => Math.floor(x / p ** i) % p);
  const fromDigits = (d: number[]): number => d.reduce((s, c, i) => s + c * p ** i, 0);
  const modulus = m === 1 ? [0, 1] : irreducible(p, m);
  const addTable = new Uint8Array(q * q);
  const mulTable = new Uint8Array(q * q);
  for (let a = 0; a < q; a++) {
    const da = digits(a);
    for (let b = 0; b < q; b++) {
      const db = digits(b);
      addTable[a * q + b] = fromDigits(da.map((c, i) => (c + db[i]!) % p));
      mulTable[a * q + b] = fromDigits(polyMulMod(da, db, modulus, p).slice(0, m));
    }
  }
  const inverse = new Uint8Array(q);
  const negation = new Uint8Array(q);
  for (let a = 0; a < q; a++) {
    for (let b = 0; b < q; b++) {
      if (mulTable[a * q + b] === 1) inverse[a] = b;
      if (addTable[a * q + b] === 0) negation[a] = b;
    }
  }
  const field: GaloisField = {
    q,
    p,
    m,
    add: (a, b) => addTable[a * q + b]!,
    mul: (a, b) => mulTable[a * q + b]!,
    neg: (a) => negation[a]!,
    inv: (a) => {
      if (a === 0) throw new RangeError("galoisField: 0 has no inverse");
      return inverse[a]!;
    },
    pow: (a, e) => {
      let result = 1;
      for (let i = 0; i < e; i++) result = mulTable[result * q + a]!;
      return result;
    },
  };
  cache.set(q, field);
  return field;
}

/** Product of two polynomials over GF(p) (coefficient lists, lowest first) reduced modulo a monic `modulus`. */
function polyMulMod(a: number[], b: number[], modulus: number[], p: number): number[] {
  const product = new Array<number>(a.length + b.length - 1).fill(0);
  for (let i = 0; i < a.length; i++)
    for (let j = 0; j < b.length; j++) product[i + j] = (product[i + j]! + a[i]! * b[j]!) % p;
  reduceModulo(product, modulus, p);
  const degree = modulus.length - 1;
  while (product.length < degree) product.push(0);
  return product;
}

/**
 * In place: `poly` (coefficients over GF(p), lowest first) reduced modulo the monic
 * `modulus` of degree m; the remainder is `poly[0 .. m)`, the higher entries end 0.
 * O(poly.length * m).
 */
function reduceModulo(poly: number[], modulus: readonly number[], p: number): void {
  const degree = modulus.length - 1;
  for (let i = poly.length - 1; i >= degree; i--) {
    const c = poly[i]!;
    if (c === 0) continue;
    for (let j = 0; j <= degree; j++)
      poly[i - degree + j] = (((poly[i - degree + j]! - c * modulus[j]!) % p) + p) % p;
  }
}

/** The first monic irreducible polynomial of degree m over GF(p) (no monic factor of degree 1..m/2). */
function irreducible(p: number, m: number): number[] {
  const monic = (degree: number, index: number): number[] => [
    ...Array.from({ length: degree }, (_, i) => Math.floor(index / p ** i) % p),
    1,
  ];
  for (let index = 0; index < p ** m; index++) {
    const candidate = monic(m, index);
    if (candidate[0] === 0) continue;
    let reducible = false;
    for (let degree = 1; degree <= m / 2 && !reducible; degree++) {
      for (let f = 0; f < p ** degree && !reducible; f++) {
        if (remainderIsZero(candidate, monic(degree, f), p)) reducible = true;
      }
    }
    if (!reducible) return candidate;
  }
  throw new RangeError(`galoisField: no irreducible polynomial of degree ${m} over GF(${p})`);
}

function remainderIsZero(dividend: number[], divisor: number[], p: number): boolean {
  const rest = dividend.slice();
  reduceModulo(rest, divisor, p);
  return rest.slice(0, divisor.length - 1).every((c) => c === 0);
}
