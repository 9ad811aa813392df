import { createMethod, queryInterval, runMethod } from "@calm-ldp/baselines";
import { contingencyTable } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { InvalidAnalysisError } from "./errors.js";
import { independentPairStore } from "./noise-aware-calibration.js";
import { noiseAwareGoodnessOfFit } from "./noise-aware-goodness-of-fit.js";

describe("noiseAwareGoodnessOfFit", () => {
  it("keeps its type I error near 0.05 against the true table (500 runs each for CALM and InpHT, eps 1) and rejects a wrong one", () => {
    // Rates over 500 seeded runs have sd 0.0097: the band 0.03-0.07 is z = 2.06 either side.
    const store = independentPairStore(2 ** 13, 4, 5);
    const truth = contingencyTable(store, [0, 2]).cells.map((x) => x / store.size);
    const wrong = Float64Array.from(truth, (x) => 0.7 * x + 0.3 / truth.length);
    for (const id of ["calm", "inpht"]) {
      const method = createMethod(id);
      const plan = method.plan({ schema: store.schema, n: store.size, eps: 1, k: 2 });
      let rejectTrue = 0;
      let rejectWrong = 0;
      const runs = 500;
      for (let r = 0; r < runs; r++) {
        const { aggregator } = runMethod(method, plan, store, seededRng(deriveSeed(7, r)));
        const answer = queryInterval(id, method.estimate(plan, aggregator), [0, 2], {
          interval: 0.95,
          covariance: true,
        })!;
        const fit = answer as Required<typeof answer>;
        if (noiseAwareGoodnessOfFit(fit, truth).reject) rejectTrue++;
        if (noiseAwareGoodnessOfFit(fit, wrong).reject) rejectWrong++;
      }
      console.log(
        `goodness of fit, ${id} eps 1: type I ${rejectTrue / runs}, power vs 30% uniform mix ${rejectWrong / runs}`,
      );
      expect(rejectTrue / runs, `${id} type I`).toBeGreaterThanOrEqual(0.03);
      expect(rejectTrue / runs, `${id} type I`).toBeLessThanOrEqual(0.07);
      expect(rejectWrong / runs, `${id} power`).toBeGreaterThan(0.8);
    }
  });

  it("rejects malformed input with typed errors", () => {
    const answer = {
      center: new Float64Array([0.5, 0.5]),
      covariance: new Float64Array([1e-3, -1e-3, -1e-3, 1e-3]),
    };
    expect(noiseAwareGoodnessOfFit(answer, [1, 1]).dof).toBe(1);
    expect(() => noiseAwareGoodnessOfFit(answer, [1])).toThrow(InvalidAnalysisError);
    expect(() => noiseAwareGoodnessOfFit(answer, [-1, 2])).toThrow(InvalidAnalysisError);
    expect(() => noiseAwareGoodnessOfFit({ ...answer, covariance: new Float64Array(3) }, [1, 1])).toThrow(
      InvalidAnalysisError,
    );
  });
});
