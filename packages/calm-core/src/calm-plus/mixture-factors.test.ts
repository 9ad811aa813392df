import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { mixtureFactors, momentFactors } from "./mixture-factors.js";

describe("momentFactors", () => {
  it("is A / (A + tau^2) with A = max(0, mean(r^2 - tau^2))", () => {
    // r^2 - tau^2 = 8 and 0: A = 4, factor 4 / 5 for both.
    expect(Array.from(momentFactors(Float64Array.of(3, -1), Float64Array.of(1, 1)))).toEqual([0.8, 0.8]);
    // Residuals within the noise: A = 0, everything moves to the target.
    expect(Array.from(momentFactors(Float64Array.of(0.5, -0.5), Float64Array.of(1, 1)))).toEqual([0, 0]);
  });
});

describe("mixtureFactors", () => {
  it("gives factors in [0, 1] that grow with |r| at equal noise (the posterior moves to larger scales)", () => {
    const rng = seededRng(11);
    const n = 300;
    // Half noise only, half a signal of scale 3: residual = signal + N(0, 1).
    const residual = Float64Array.from({ length: n }, (_, i) => {
      const u = Math.max(rng.nextFloat(), 1e-12);
      const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextFloat());
      return normal + (i % 2 === 0 ? 3 * Math.sign(rng.nextFloat() - 0.5) : 0);
    });
    const tau2 = new Float64Array(n).fill(1);
    const logDensity = new Float64Array(n);
    const factors = mixtureFactors(residual, tau2, logDensity);
    const order = Array.from(residual.keys()).sort((a, b) => Math.abs(residual[a]!) - Math.abs(residual[b]!));
    for (let i = 0; i < n; i++) {
      expect(factors[i]).toBeGreaterThanOrEqual(0);
      expect(factors[i]).toBeLessThanOrEqual(1);
      expect(Number.isFinite(logDensity[i])).toBe(true);
    }
    // Monotone up to rounding: each factor (sorted by |r|) at least the one before.
    for (let k = 1; k < n; k++) expect(factors[order[k]!]! - factors[order[k - 1]!]!).toBeGreaterThan(-1e-12);
  });

  it("sends residuals that are all 0 to the target", () => {
    // Every residual 0: EM (from uniform weights) multiplies the weight ratio of scale s to
    // s = 0 by L_s / L_0 = (1 + s^2 / tau^2)^(-1/2) each step, at most 0.970 for the smallest
    // non-zero scale tau / 4, so after 200 steps that scale weighs below 0.970^200 < 0.003
    // (factor 1/17) and the larger ones far less: every factor is below 3e-4, asserted < 0.01.
    const factors = mixtureFactors(new Float64Array(50), new Float64Array(50).fill(1));
    for (const f of factors) expect(f).toBeLessThan(0.01);
  });
});
