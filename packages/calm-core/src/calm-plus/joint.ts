/** calm-plus's "joint" estimator: one graphical model fitted to every view's coefficients. */
import { createTable, type MarginalTable } from "@calm-ldp/marginal-algebra";
import type { CalmPlan } from "../api.js";
import { CannotRunError, invalid } from "../errors.js";
import type { CalmAnswer } from "../estimate.js";
import { fitJoint, type JointFit } from "../joint-fit.js";
import type { CalmPlusJointOptions, CalmPlusJointReport } from "./api.js";
import type { Pooled } from "./pooled.js";

/**
 * calm-plus's "joint" estimator: per view, targets and weights in its interaction
 * basis, then `fitJoint` (one graphical model for all views) and answers by
 * inference in it. "shrunk": every population coefficient beta_{T,j} counted once
 * (in the first view holding it): target value / scale, weight scale^2 / (max(f,
 * 0.05) tau^2) (tau^2 = 1 / pooled precision, f its shrinkage factor); "raw":
 * every view's own unbiased coefficient with weight 1 / its variance. A model too
 * large (`CannotRunError` from the junction tree) returns `fallback` with its
 * message. Cost: see `fitJoint`; queries by variable elimination (`GraphicalModel.query`).
 */
export function jointSynopsis(
  plan: CalmPlan,
  cardinalities: readonly number[],
  viewCardinalities: readonly (readonly number[])[],
  viewKeys: readonly (readonly (Pooled | undefined)[])[],
  viewScales: readonly Float64Array[],
  viewCoefficients: readonly (Float64Array | undefined)[],
  variances: readonly Float64Array[],
  targets: "shrunk" | "raw",
  options: CalmPlusJointOptions,
  maxQueryCells: number,
):
  | { fallback: string }
  | {
      views: MarginalTable[];
      report: CalmPlusJointReport;
      answer: (attributes: readonly number[]) => CalmAnswer;
    } {
  const order = plan.views.map((view) => [...view.attributes]);
  if (order.some((view) => view.some((a, i) => i > 0 && a <= view[i - 1]!)))
    return { fallback: "calm-plus joint: the plan's view attributes are not ascending" };
  const seen = new Set<Pooled>();
  const targetArrays: Float64Array[] = [];
  const weightArrays: Float64Array[] = [];
  plan.views.forEach((view, v) => {
    const t = new Float64Array(view.cells);
    const w = new Float64Array(view.cells);
    t[0] = 1 / Math.sqrt(view.cells);
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const raw = viewCoefficients[v];
    for (let u = 1; u < view.cells; u++) {
      const entry = keys[u]!;
      const scale = scales[u]!;
      if (targets === "raw") {
        t[u] = raw ? raw[u]! : 0;
        w[u] = raw && Number.isFinite(variances[v]![u]!) && variances[v]![u]! > 0 ? 1 / variances[v]![u]! : 0;
      } else {
        t[u] = entry.value / scale;
        if (!seen.has(entry) && entry.precision > 0) {
          seen.add(entry);
          w[u] = (scale * scale * entry.precision) / Math.max(entry.factor, 0.05);
        }
      }
    }
    targetArrays.push(t);
    weightArrays.push(w);
  });
  let fit: ReturnType<typeof fitJoint>;
  try {
    fit = fitJoint(cardinalities, order, targetArrays, weightArrays, options);
  } catch (error) {
    if (error instanceof CannotRunError) return { fallback: error.message };
    throw error;
  }
  const model = fit.model;
  const views = plan.views.map((view, v) =>
    createTable(view.attributes, viewCardinalities[v]!, {
      cells: Float64Array.from(fit.marginals[v]!),
      unit: "fraction",
    }),
  );
  const report: CalmPlusJointReport = {
    iterations: fit.iterations,
    converged: fit.converged,
    loss: fit.loss,
    largestClique: model.largestClique,
    totalCells: model.totalCells,
  };
  return { views, report, answer: jointAnswer(fit, order, cardinalities, maxQueryCells) };
}

/**
 * The joint model's answer to a query: its marginal on the (sorted, checked)
 * attributes by inference in the fitted model (`GraphicalModel.query`),
 * "projection" when a view holds them all. Refuses (`CannotRunError`) a table
 * above `maxQueryCells`. Cost: variable elimination's, see `GraphicalModel.query`.
 */
function jointAnswer(
  fit: JointFit,
  order: readonly (readonly number[])[],
  cardinalities: readonly number[],
  maxQueryCells: number,
): (attributes: readonly number[]) => CalmAnswer {
  return (attributes) => {
    const sorted = [...attributes].sort((x, y) => x - y);
    sorted.forEach((a, i) => {
      if (!Number.isInteger(a) || a < 0 || a >= cardinalities.length)
        invalid("calm-plus query", `attributes must be integers in 0..${cardinalities.length - 1}`, a);
      if (i > 0 && a === sorted[i - 1])
        invalid("calm-plus query", "attributes must be distinct", attributes.join(","));
    });
    let cells = 1;
    for (const a of sorted) cells *= cardinalities[a] ?? 1;
    if (cells > maxQueryCells)
      throw new CannotRunError(
        `calm-plus: the query over ${attributes.length} attributes needs a table of ${cells} cells, above maxQueryCells = ${maxQueryCells}`,
      );
    const table = createTable(
      sorted,
      sorted.map((a) => cardinalities[a]!),
      { cells: fit.model.query(fit.theta, sorted, maxQueryCells), unit: "fraction" },
    );
    const holder = order.find((view) => sorted.every((a) => view.includes(a)));
    return {
      table,
      method: holder ? "projection" : "maxent",
      diagnostics: {
        table,
        method: holder ? "projection" : "ipf",
        constraints: order.filter((view) => view.some((a) => sorted.includes(a))),
        iterations: fit.iterations,
        maxResidual: 0,
        converged: fit.converged,
        stalled: false,
        totalRestored: false,
        maxDisagreement: 0,
        clippedMass: 0,
        inconsistent: false,
      },
    };
  };
}
