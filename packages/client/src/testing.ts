import { type CalmPlan, planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";

/**
 * Plans covering every wire kind a client sends, for testing an encoder or a
 * collector's decoder (`@calm-ldp/client/testing`): binary views with GRR (small
 * views) and OUE (l = 5 at eps = 1 gives 32 cells > 3e + 2), a forced-SUE plan,
 * and views whose cell count is not a multiple of 8 (ternary attributes, OUE
 * padding bits). Keys: `grr`, `oue`, `sue`, `ternary`. Planning cost only.
 */
export function wireKindPlans(): Record<string, CalmPlan> {
  const binary = createSchema(Array.from({ length: 6 }, (_, i) => ({ name: `b${i}`, cardinality: 2 })));
  const ternary = createSchema(Array.from({ length: 5 }, (_, i) => ({ name: `t${i}`, cardinality: 3 })));
  return {
    grr: planCalm({ schema: binary, n: 50_000, eps: 1, k: 2 }, { l: 2 }),
    oue: planCalm({ schema: binary, n: 50_000, eps: 1, k: 2 }, { l: 5 }),
    sue: planCalm({ schema: binary, n: 50_000, eps: 1, k: 2 }, { l: 3, oracle: "sue" }),
    ternary: planCalm({ schema: ternary, n: 50_000, eps: 0.5, k: 2 }, { l: 3, oracle: "oue" }),
  };
}

/**
 * The millisecond a time-ordered (version 7) report id was made at: its first
 * 48 bits (`createTimeOrderedReportId`'s `now`). For tests of id makers, and for
 * linkers in privacy tests (on a random id it reads 48 random bits). O(1).
 */
export function reportIdTime(id: string): number {
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
