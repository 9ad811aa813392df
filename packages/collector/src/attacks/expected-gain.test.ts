import { planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { expectedGain } from "./expected-gain.js";

/** The probe: d = 8 binary attributes, P(1) = 0.3 independently, k = 2, n = 2^17 (28 GRR pair views). */
function probe(eps: number, oracle?: "oue") {
  const schema = createSchema(Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
  const plan = planCalm({ schema, n: 2 ** 17, eps, k: 2 }, oracle ? { oracle } : {});
  const honest = plan.views.map((view) =>
    Array.from({ length: view.cells }, (_, x) =>
      view.attributes.reduce((f, _a, j) => {
        const bit = (x >> (view.attributes.length - 1 - j)) & 1;
        return f * (bit ? 0.3 : 0.7);
      }, 1),
    ),
  );
  return { plan, honest, target: { attributes: [0, 1], values: [1, 1] } };
}

const fT = 0.09;
const floor = (eps: number, beta: number) => beta * (Math.exp(eps) / (Math.exp(eps) - 1) - fT);

describe("expected gain of MGA in a uniformly drawn view through CALM's release", () => {
  it("equals formula (1) for a 4-cell GRR view: consistency neither dilutes nor amplifies aligned lies", () => {
    for (const eps of [1, 0.5]) {
      const { plan, honest, target } = probe(eps);
      expect(plan.views).toHaveLength(28);
      expect(plan.views.every((v) => v.oracle === "grr" && v.cells === 4)).toBe(true);
      const e = Math.exp(eps);
      for (const beta of [0.01, 0.05]) {
        const formula = beta * ((e + 2) / (e - 1) - fT);
        const gain = expectedGain(plan, target, honest, beta);
        // Deterministic (expected counts at 1e9 reports per view): only rounding, far below 0.5%.
        expect(Math.abs(gain / formula - 1)).toBeLessThan(0.005);
        expect(gain / floor(eps, beta)).toBeGreaterThan(1.5);
      }
    }
  });

  it("is diluted by consistency when fakes lie only in the view covering the target (a weaker attacker)", () => {
    for (const eps of [1, 0.5]) {
      const { plan, honest, target } = probe(eps);
      const aligned = expectedGain(plan, target, honest, 0.05);
      const confined = expectedGain(plan, target, honest, 0.05, "target-views-only");
      expect(confined).toBeGreaterThan(0);
      expect(confined).toBeLessThan(0.6 * aligned);
      expect(confined / floor(eps, 0.05)).toBeLessThan(1);
    }
  });
});
