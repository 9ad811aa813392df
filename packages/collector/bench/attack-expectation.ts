/**
 * Expected gain / floor of maximal-gain fakes in uniformly drawn views (what
 * protected mode leaves of `mga-grind-view`) at the issue's probe setting:
 * d = 8 binary attributes, P(1) = 0.3, k = 2, n = 2^17, target (x0, x1) = (1, 1).
 * Computed on expected support counts through calm-core's release (no sampling):
 * `npx tsx bench/attack-expectation.ts`. Not a speed benchmark; prints a table.
 */
import { planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { expectedGain } from "../src/attacks/expected-gain.js";

const schema = createSchema(Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
const target = { attributes: [0, 1], values: [1, 1] };
const fT = 0.09;
for (const oracle of ["grr", "oue"] as const)
  for (const eps of [1, 0.5]) {
    const plan = planCalm({ schema, n: 2 ** 17, eps, k: 2 }, oracle === "oue" ? { oracle } : {});
    const honest = plan.views.map((view) =>
      Array.from({ length: view.cells }, (_, x) =>
        view.attributes.reduce(
          (f, _a, j) => f * ((x >> (view.attributes.length - 1 - j)) & 1 ? 0.3 : 0.7),
          1,
        ),
      ),
    );
    const e = Math.exp(eps);
    for (const beta of [0.01, 0.05]) {
      const floor = beta * (e / (e - 1) - fT);
      const row = (placement: "every-view" | "target-views-only", honestCount = false) => {
        const gain = expectedGain(plan, target, honest, beta, placement, honestCount);
        return `gain ${gain.toFixed(4)} = ${(gain / floor).toFixed(2)} x floor`;
      };
      console.log(
        `${oracle} m=${plan.views.length} eps=${eps} beta=${beta} floor ${floor.toFixed(4)}: MGA in every view ${row("every-view")}; lying only in the target's view ${row("target-views-only")}${oracle === "oue" ? `; mga-honest-count ${row("every-view", true)}` : ""}`,
      );
    }
  }
