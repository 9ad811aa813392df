import { planCalm } from "@calm-ldp/calm-core";
import { createSchema, uniformSchema } from "@calm-ldp/marginal-algebra";
import { type Command, UsageError } from "../cli-kit.js";

interface PlanOptions {
  n: number;
  d: number;
  k: number;
  eps: number;
  theta: number;
  cardinalities?: number[];
  l?: number;
  m?: number;
  selection: "balanced" | "random";
}

export const planCommand: Command = {
  name: "plan",
  summary: "Choose CALM's view size l, number of views m (Algorithm 1) and the views themselves.",
  options: {
    n: { type: "integer", description: "number of users", required: true, min: 1 },
    d: { type: "integer", description: "number of attributes", required: true, min: 2 },
    k: { type: "integer", description: "target query size (k-way marginals)", required: true, min: 1 },
    eps: { type: "number", description: "privacy budget per user", required: true },
    theta: { type: "number", description: "error threshold of Algorithm 1", default: 0.001 },
    cardinalities: {
      type: "numbers",
      description: "categories per attribute, c1,c2,... (default: all binary)",
      min: 2,
    },
    l: { type: "integer", description: "force the view size", min: 1 },
    m: { type: "integer", description: "force the number of views", min: 1 },
    selection: {
      type: "string",
      description: "view choice beyond a covering design",
      choices: ["balanced", "random"],
      default: "balanced",
    },
  },
  run(raw) {
    const options = raw as unknown as PlanOptions;
    if (options.k > options.d)
      throw new UsageError(`plan: --k must be <= --d = ${options.d} (got ${options.k})`);
    let schema = uniformSchema(options.d);
    if (options.cardinalities) {
      if (options.cardinalities.length !== options.d) {
        throw new UsageError(
          `plan: --cardinalities must list ${options.d} values, one per attribute (got ${options.cardinalities.length})`,
        );
      }
      if (options.cardinalities.some((c) => !Number.isInteger(c)))
        throw new UsageError("plan: --cardinalities must be integers >= 2");
      schema = createSchema(options.cardinalities.map((cardinality, i) => ({ name: `a${i}`, cardinality })));
    }
    const plan = planCalm(
      { schema, n: options.n, eps: options.eps, k: options.k },
      {
        theta: options.theta,
        selection: options.selection,
        ...(options.l ? { l: options.l } : {}),
        ...(options.m ? { m: options.m } : {}),
      },
    );
    return {
      l: plan.l,
      m: plan.m,
      theta: plan.theta,
      candidates: plan.candidates,
      views: plan.views.map((view) => view.attributes),
      oracles: plan.views.map((view) => view.oracle),
      covering: plan.covering,
      n: plan.n,
      d: options.d,
      k: plan.k,
      eps: plan.eps,
    };
  },
};
