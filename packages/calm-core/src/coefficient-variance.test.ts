import { describe, expect, it } from "vitest";
import { coefficientVariances, squaredInteractionTransform } from "./coefficient-variance.js";
import { helmertBasis, interactionTransform } from "./interaction-basis.js";

/** Row u of the tensor Helmert basis (first attribute most significant), by transforming unit vectors. */
function basisRows(cardinalities: number[]): Float64Array[] {
  const size = cardinalities.reduce((a, b) => a * b, 1);
  const rows = Array.from({ length: size }, () => new Float64Array(size));
  for (let i = 0; i < size; i++) {
    const unit = new Float64Array(size);
    unit[i] = 1;
    interactionTransform(unit, cardinalities, false);
    for (let u = 0; u < size; u++) rows[u]![i] = unit[u]!;
  }
  return rows;
}

describe("coefficient variances", () => {
  const cardinalities = [3, 2];
  const f = Float64Array.from([0.5, 0.05, 0.2, 0.1, 0.15, 0]);
  const rows = basisRows(cardinalities);
  const quad = (h: Float64Array, cov: (i: number, j: number) => number) => {
    let s = 0;
    for (let i = 0; i < h.length; i++) for (let j = 0; j < h.length; j++) s += h[i]! * h[j]! * cov(i, j);
    return s;
  };
  const ofF = Float64Array.from(f);
  interactionTransform(ofF, cardinalities, false);
  // Sampling N users from the population: multinomial covariance (diag f - f f^T) / N.
  const sampling = (N: number) => (i: number, j: number) => ((i === j ? f[i]! : 0) - f[i]! * f[j]!) / N;

  it("the squared transform is sum_i h_ui^2 x_i", () => {
    const x = Float64Array.from([1, 2, 3, 4, 5, 6]);
    const out = Float64Array.from(x);
    squaredInteractionTransform(out, cardinalities);
    rows.forEach((h, u) => {
      expect(out[u]).toBeCloseTo(
        h.reduce((s, hi, i) => s + hi * hi * x[i]!, 0),
        12,
      );
    });
    expect(helmertBasis(2).length).toBe(4);
  });

  it("GRR: equals h^T Cov h with the exact per-user covariance of the de-biased counts (negatively correlated cells)", () => {
    const [p, q, N] = [0.4, 0.12, 1000];
    // One user holding x: report indicator vector with mean pi(x) (p at x, q elsewhere), covariance diag(pi) - pi pi^T.
    const oracleCov = (i: number, j: number) => {
      let s = 0;
      for (let x = 0; x < f.length; x++) {
        const pi = (y: number) => (y === x ? p : q);
        s += N * f[x]! * ((i === j ? pi(i) : 0) - pi(i) * pi(j));
      }
      return s / (N * N * (p - q) ** 2);
    };
    const got = coefficientVariances("grr", p, q, N, f, cardinalities, ofF);
    for (let u = 1; u < f.length; u++) {
      const want = quad(rows[u]!, oracleCov) + quad(rows[u]!, sampling(N));
      expect(Math.abs(got[u]! - want) / want).toBeLessThan(1e-10);
    }
  });

  it("unary oracles: independent cells of variance (f p(1-p) + (1-f) q(1-q)) / (N (p-q)^2)", () => {
    const [p, q, N] = [0.5, 0.3, 700];
    const oracleCov = (i: number, j: number) =>
      i === j ? (f[i]! * p * (1 - p) + (1 - f[i]!) * q * (1 - q)) / (N * (p - q) ** 2) : 0;
    const got = coefficientVariances("oue", p, q, N, f, cardinalities, ofF);
    for (let u = 1; u < f.length; u++) {
      const want = quad(rows[u]!, oracleCov) + quad(rows[u]!, sampling(N));
      expect(Math.abs(got[u]! - want) / want).toBeLessThan(1e-10);
    }
  });
});
