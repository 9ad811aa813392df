/** ln 2 split Cody-Waite style (fdlibm's constants): n * LN2_HIGH is exact for n < 2^21. */
const LN2_HIGH = 0.6931471803691238;
const LN2_LOW = 1.9082149292705877e-10;
const LN2 = Math.LN2;

/**
 * exp(x) for x <= 0 using only IEEE-754 additions, multiplications and divisions
 * (which are correctly rounded, hence identical on every platform), unlike
 * `Math.exp`, whose last bit is implementation-defined. Range reduction
 * x = -n ln 2 + r with n = floor(-x / ln 2) and ln 2 in two parts (Cody and Waite),
 * a 20-term Taylor series for e^r, r in about (-ln 2, 0], then n exact halvings.
 * Relative error below 1e-14; returns 0 below -700. O(1).
 * @internal
 */
export function deterministicExp(x: number): number {
  if (x > 0) throw new RangeError(`deterministicExp: x must be <= 0 (got ${x})`);
  if (x < -700) return 0;
  const n = Math.floor(-x / LN2);
  const r = x + n * LN2_HIGH + n * LN2_LOW;
  let term = 1;
  let sum = 1;
  for (let i = 1; i <= 20; i++) {
    term = (term * r) / i;
    sum += term;
  }
  for (let i = 0; i < n; i++) sum *= 0.5;
  return sum;
}
