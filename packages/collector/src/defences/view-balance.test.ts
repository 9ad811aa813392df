import { multinomial, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { viewBalanceFlags } from "./view-balance.js";

describe("viewBalanceFlags", () => {
  const m = 6;
  const uniform = new Array<number>(m).fill(1 / m);

  it("flags an honest round (uniform views) at most at its false-positive rate 1%", () => {
    // 4000 seeded honest rounds of 6000 reports; flagged count ~ Binomial(4000, <= 0.01):
    // below 40 + 3.1 sd (sd = sqrt(4000 * 0.01 * 0.99) = 6.3), p < 0.001 if the rate held.
    const rng = seededRng(11);
    let flagged = 0;
    for (let r = 0; r < 4000; r++)
      if (viewBalanceFlags(Array.from(multinomial(rng, 6000, uniform))).length > 0) flagged++;
    expect(flagged).toBeLessThan(40 + 3.1 * Math.sqrt(4000 * 0.01 * 0.99));
    // And it is not vacuous: a test without the Bonferroni correction (alpha per view) flags more.
    let loose = 0;
    for (let r = 0; r < 4000; r++)
      if (viewBalanceFlags(Array.from(multinomial(rng, 6000, uniform)), 0.01 * m).length > 0) loose++;
    expect(loose).toBeGreaterThan(flagged);
  });

  it("flags a view that grinding fake clients crowd (5% of clients in one view of 6)", () => {
    const rng = seededRng(12);
    let caught = 0;
    for (let r = 0; r < 200; r++) {
      const counts = Array.from(multinomial(rng, 6000, uniform));
      counts[2]! += 316; // beta = 0.05 of 6316 clients
      const flags = viewBalanceFlags(counts);
      if (flags.some((f) => f.view === 2 && f.z > 0)) caught++;
    }
    expect(caught).toBeGreaterThanOrEqual(198);
  });

  it("does not test rounds too small for the normal approximation", () => {
    expect(viewBalanceFlags([100, 0, 0, 0, 0, 0])).toEqual([]);
  });
});
