import { contingencyTable, sse } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { estimateCalm } from "./estimate.js";
import { expectedQuerySse } from "./expected-error.js";
import { planCalm } from "./plan.js";
import { simulateCalm } from "./simulate.js";
import { markovStore } from "./test-support.js";

/**
 * Measured SSE of covered queries (raw views, no post-processing) against
 * `expectedQuerySse`, summed over all covered queries and averaged over
 * repetitions. Tolerance |z| < 4.5 with z from the spread of the per-repetition
 * sums: a correct formula fails with probability ~1e-5, while a formula off by 10%
 * is off by z ~ 10 at these repetition counts.
 */
function check(
  cardinalities: number[],
  eps: number,
  k: number,
  l: number | undefined,
  oracle: "grr" | "oue" | undefined,
) {
  const data = markovStore(seededRng(21), 2 ** 15, cardinalities, 0.6);
  const plan = planCalm(
    { schema: data.schema, n: data.size, eps, k },
    { ...(l ? { l } : {}), ...(oracle ? { oracle } : {}) },
  );
  const queries = plan.views.map((v) => v.attributes.slice(0, k));
  const truths = queries.map((q) => contingencyTable(data, q));
  const expected = truths.reduce((s, t) => s + expectedQuerySse(plan, t).total, 0);
  const reps = 120;
  const sums: number[] = [];
  for (let r = 0; r < reps; r++) {
    const synopsis = estimateCalm(plan, simulateCalm(plan, data, seededRng(22, r)), { postProcess: false });
    sums.push(queries.reduce((s, q, i) => s + sse(synopsis.query(q).cells, truths[i]!.cells), 0));
  }
  const mean = sums.reduce((s, x) => s + x, 0) / reps;
  const sd = Math.sqrt(sums.reduce((s, x) => s + (x - mean) ** 2, 0) / (reps - 1));
  const z = (mean - expected) / (sd / Math.sqrt(reps));
  if (process.env.CALM_VERBOSE)
    console.log(`measured/expected = ${(mean / expected).toFixed(4)}, z = ${z.toFixed(2)}`);
  return { z, ratio: mean / expected, plan };
}

describe("expectedQuerySse", () => {
  it("matches measurement for GRR views (binary, l = 2)", () => {
    const { z, plan } = check([2, 2, 2, 2, 2, 2], 1, 2, undefined, undefined);
    expect(plan.views[0]!.oracle).toBe("grr");
    expect(Math.abs(z)).toBeLessThan(4.5);
  });

  it("counts GRR's group sampling once (eps 3, l = 2: sampling exceeds the noise term, so a double count would be off by > 50%)", () => {
    // With GRR the per-cell noise term uses the conditional (given the group's users) variances
    // pi_in (1 - pi_in) and pi_out (1 - pi_out); adding the group's sampling f (1 - f) / N_V
    // gives the i.i.d. law pi (1 - pi) / (N_V (p - q)^2) once, not twice.
    const { z, ratio, plan } = check([2, 2, 2, 2, 2, 2], 3, 2, 2, "grr");
    expect(plan.views[0]!.oracle).toBe("grr");
    const data = markovStore(seededRng(21), 2 ** 15, [2, 2, 2, 2, 2, 2], 0.6);
    const truth = contingencyTable(data, plan.views[0]!.attributes);
    const parts = expectedQuerySse(plan, truth);
    expect(parts.sampling / parts.noise).toBeGreaterThan(1);
    expect(Math.abs(z)).toBeLessThan(4.5);
    expect(ratio).toBeGreaterThan(0.92);
    expect(ratio).toBeLessThan(1.08);
  });

  it("matches measurement for OUE views, queries inside several views (ternary, l = 3, k = 2)", () => {
    const { z, plan } = check([3, 3, 3, 3, 3], 0.5, 2, 3, "oue");
    expect(plan.views.every((v) => v.oracle === "oue")).toBe(true);
    expect(Math.abs(z)).toBeLessThan(4.5);
  });

  it("refuses a query no view covers", () => {
    const data = markovStore(seededRng(1), 1000, [2, 2, 2, 2], 0.6);
    const plan = planCalm({ schema: data.schema, n: 1000, eps: 1, k: 2 }, { l: 2, m: 1 });
    const uncovered = [0, 1, 2, 3].filter((a) => !plan.views[0]!.attributes.includes(a));
    expect(() => expectedQuerySse(plan, contingencyTable(data, uncovered))).toThrow(
      /must be covered by a view/,
    );
  });
});
