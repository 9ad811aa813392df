import type { Rng } from "./api.js";
import { fail } from "./errors.js";

/** Below this mean (n * min(p, 1-p)) binomial uses inversion, above it BTPE. */
const INVERSION_MAX_MEAN = 30;
const MAX_N = 2 ** 31;

/**
 * Binomial(n, p) variate, for integer n in [0, 2^31] and p in [0, 1].
 *
 * Uses p' = min(p, 1 - p) and reflects. For mean n p' < 30: sequential inversion
 * from 0 (expected O(n p') steps). Otherwise BTPE, the triangle/parallelogram/
 * exponential rejection algorithm of Kachitvichyanukul and Schmeiser,
 * "Binomial random variate generation", CACM 31(2), 1988: O(1) expected time for
 * any n. Both are exact up to double rounding of the pmf ratios (relative 1e-15).
 */
export function binomial(rng: Rng, n: number, p: number): number {
  if (!Number.isInteger(n) || n < 0 || n > MAX_N) fail("binomial", "n must be an integer in [0, 2^31]", n);
  if (!(p >= 0 && p <= 1)) fail("binomial", "p must be a probability in [0, 1]", p);
  if (n === 0 || p === 0) return 0;
  if (p === 1) return n;
  const r = p <= 0.5 ? p : 1 - p;
  const y = n * r < INVERSION_MAX_MEAN ? inversion(rng, n, r) : btpe(rng, n, r);
  return p <= 0.5 ? y : n - y;
}

function inversion(rng: Rng, n: number, p: number): number {
  const q = 1 - p;
  const qn = Math.exp(n * Math.log1p(-p));
  const np = n * p;
  const bound = Math.min(n, np + 10 * Math.sqrt(np * q + 1));
  for (;;) {
    let x = 0;
    let px = qn;
    let u = rng.nextFloat();
    while (u > px) {
      x++;
      if (x > bound) break;
      u -= px;
      px = ((n - x + 1) * p * px) / (x * q);
    }
    if (x <= bound) return x;
  }
}

function btpe(rng: Rng, n: number, r: number): number {
  const q = 1 - r;
  const fm = n * r + r;
  const m = Math.floor(fm);
  const nrq = n * r * q;
  const p1 = Math.floor(2.195 * Math.sqrt(nrq) - 4.6 * q) + 0.5;
  const xm = m + 0.5;
  const xl = xm - p1;
  const xr = xm + p1;
  const c = 0.134 + 20.5 / (15.3 + m);
  let a = (fm - xl) / (fm - xl * r);
  const laml = a * (1 + a / 2);
  a = (xr - fm) / (xr * q);
  const lamr = a * (1 + a / 2);
  const p2 = p1 * (1 + 2 * c);
  const p3 = p2 + c / laml;
  const p4 = p3 + c / lamr;

  for (;;) {
    const u = rng.nextFloat() * p4;
    let v = rng.nextFloat();
    let y: number;
    if (u <= p1) {
      // Triangular region: accept at once.
      return Math.floor(xm - p1 * v + u);
    }
    if (u <= p2) {
      const x = xl + (u - p1) / c;
      v = v * c + 1 - Math.abs(m - x + 0.5) / p1;
      if (v > 1) continue;
      y = Math.floor(x);
    } else if (u <= p3) {
      y = Math.floor(xl + Math.log(v) / laml);
      if (y < 0) continue;
      v = v * (u - p2) * laml;
    } else {
      y = Math.floor(xr - Math.log(v) / lamr);
      if (y > n) continue;
      v = v * (u - p3) * lamr;
    }
    const k = Math.abs(y - m);
    if (k <= 20 || k >= nrq / 2 - 1) {
      // Explicit evaluation of f(y) / f(m) by the recurrence.
      const s = r / q;
      const aa = s * (n + 1);
      let f = 1;
      if (m < y) {
        for (let i = m + 1; i <= y; i++) f *= aa / i - s;
      } else if (m > y) {
        for (let i = y + 1; i <= m; i++) f /= aa / i - s;
      }
      if (v <= f) return y;
      continue;
    }
    // Squeeze using upper and lower bounds on log f(y).
    const rho = (k / nrq) * ((k * (k / 3 + 0.625) + 0.1666666666666) / nrq + 0.5);
    const t = (-k * k) / (2 * nrq);
    const logV = Math.log(v);
    if (logV < t - rho) return y;
    if (logV > t + rho) continue;
    // Final acceptance test with Stirling's formula corrections.
    const x1 = y + 1;
    const f1 = m + 1;
    const z = n + 1 - m;
    const w = n - y + 1;
    if (
      logV <=
      xm * Math.log(f1 / x1) +
        (n - m + 0.5) * Math.log(z / w) +
        (y - m) * Math.log((w * r) / (x1 * q)) +
        stirlingTail(f1) +
        stirlingTail(z) +
        stirlingTail(x1) +
        stirlingTail(w)
    ) {
      return y;
    }
  }
}

function stirlingTail(x: number): number {
  const x2 = x * x;
  return (13860 - (462 - (132 - (99 - 140 / x2) / x2) / x2) / x2) / x / 166320;
}
