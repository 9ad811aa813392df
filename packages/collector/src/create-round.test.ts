import { planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { MAX_VIEW_CELLS, planRound } from "./create-round.js";
import { RequestRejectedError } from "./errors.js";

describe("planRound", () => {
  const attributes = Array.from({ length: 6 }, (_, i) => ({ name: `a${i}`, cardinality: 2 }));

  it("plans exactly what calm-core plans for the same parameters, under a random UUID", () => {
    const round = planRound({ schema: { attributes }, eps: 1.5, k: 2, n: 50_000, theta: 0.002 });
    expect(round.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(round.plan).toEqual(
      planCalm({ schema: createSchema(attributes), n: 50_000, eps: 1.5, k: 2 }, { theta: 0.002 }),
    );
    expect(planRound({ schema: { attributes }, eps: 1, k: 2, n: 50_000 }).id).not.toBe(round.id);
  });

  it("refuses impossible rounds with reason invalid-round and the planner's message", () => {
    const reasonOf = (request: Parameters<typeof planRound>[0]) => {
      try {
        planRound(request);
        return "accepted";
      } catch (error) {
        expect(error).toBeInstanceOf(RequestRejectedError);
        return `${(error as RequestRejectedError).reason}: ${(error as Error).message}`;
      }
    };
    expect(reasonOf({ schema: { attributes }, eps: 1, k: 7, n: 1000 })).toMatch(
      /^invalid-round: k must be <= d = 6/,
    );
    expect(reasonOf({ schema: { attributes }, eps: 1, k: 2, n: 3 })).toMatch(
      /^invalid-round: planCalm: theta \* n = 0.003 allows no view/,
    );
    expect(
      reasonOf({ schema: { attributes: [attributes[0]!, attributes[0]!] }, eps: 1, k: 1, n: 1000 }),
    ).toMatch(/^invalid-round: .*createSchema/);
    const wide = Array.from({ length: 4 }, (_, i) => ({ name: `w${i}`, cardinality: 200 }));
    expect(reasonOf({ schema: { attributes: wide }, eps: 1, k: 2, n: 1e9 })).toMatch(
      new RegExp(`at most ${MAX_VIEW_CELLS}`),
    );
  });
});
