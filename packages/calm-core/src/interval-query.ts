/**
 * CALM's queries with a confidence interval (`synopsis.query(attributes, { interval })`):
 * which path answers (analytic, bounds, bootstrap), its checks, and the table it returns.
 */
import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import { analyticAnswer } from "./analytic-answer.js";
import type { CalmPlan } from "./api.js";
import { bootstrapBounds, replicateCovariance } from "./bootstrap-interval.js";
import { boundInterval } from "./bound-interval.js";
import { CannotRunError, InvalidParameterError } from "./errors.js";
import type { CalmIntervalOptions, CalmIntervalTable } from "./interval.js";
import { analyticIntervalTable } from "./interval-table.js";
import { twoSidedZ } from "./normal-quantile.js";
import { planRuntime } from "./runtime.js";
import type { ViewNoiseInput } from "./view-covariance.js";

/** A released answer as interval queries read it (CALM's `CalmAnswer`, structurally). */
interface ReleasedAnswer {
  table: MarginalTable;
  method: "projection" | "maxent";
}

/** What a release's interval queries read. */
export interface IntervalRelease {
  readonly plan: CalmPlan;
  /** The oracles' unbiased views and the released (post-processed) ones. */
  readonly rawViews: readonly MarginalTable[];
  readonly views: readonly MarginalTable[];
  /** Reports per view, N_V, when the release was estimated (their sum is the population n). */
  readonly reportsPerView: readonly number[];
  /** The release's `instantEps` (intervals are refused with it). */
  readonly instantEps: number | undefined;
  /** The release's answer to a query. */
  answer(attributes: readonly number[]): ReleasedAnswer;
  /** B parametric-bootstrap replicates of the release drawn with `seed` (the caller caches them). */
  replicates(
    count: number,
    seed: number,
  ): readonly { answer(attributes: readonly number[]): ReleasedAnswer }[];
}

/**
 * The release's interval query: checks (a level in (0, 1), no `instantEps`, a
 * report in every view, a known `intervalMethod`), then "auto" takes analytic on
 * covered queries and bounds on maximum-entropy ones; analytic and bootstrap are
 * refused on maximum-entropy answers (they would miss the model's bias). Costs:
 * see `CalmIntervalSynopsis.query`.
 */
export function intervalQueries(
  release: IntervalRelease,
): (attributes: readonly number[], intervalOptions: CalmIntervalOptions) => CalmIntervalTable {
  const { plan, answer } = release;
  const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
  const population = release.reportsPerView.reduce((sum, x) => sum + x, 0);
  const firstEmptyView = release.reportsPerView.indexOf(0);
  let noiseInputs: ViewNoiseInput[] | undefined;
  const analyticInputs = (): ViewNoiseInput[] => {
    noiseInputs ??= plan.views.map((view, i) => ({
      attributes: view.attributes,
      cardinalities: release.rawViews[i]!.cardinalities,
      raw: release.rawViews[i]!.cells,
      released: release.views[i]!.cells,
      reports: release.reportsPerView[i]!,
      oracle: planRuntime(plan).oracles[i]!,
    }));
    return noiseInputs;
  };
  return (attributes, intervalOptions) => {
    const where = "estimateCalm.query";
    const level = intervalOptions.interval;
    const z = twoSidedZ(level, where);
    if (release.instantEps !== undefined)
      throw new CannotRunError(
        `${where}: intervals are not available for releases de-biased with instantEps (the composed noise has no variance model here)`,
      );
    const empty = firstEmptyView;
    if (empty >= 0)
      throw new CannotRunError(
        `${where}: view ${empty} has no reports, so its noise has no variance estimate and no interval is sound (wait for reports in every view)`,
      );
    const requested = intervalOptions.intervalMethod ?? "auto";
    if (
      requested !== "auto" &&
      requested !== "analytic" &&
      requested !== "bootstrap" &&
      requested !== "bounds"
    )
      throw new InvalidParameterError(
        `${where}: intervalMethod must be "auto", "analytic", "bootstrap" or "bounds" (got ${JSON.stringify(requested)})`,
      );
    const released = answer(attributes);
    const table = released.table;
    const method =
      requested === "auto" ? (released.method === "projection" ? "analytic" : "bounds") : requested;
    if (method !== "bounds" && released.method !== "projection")
      throw new CannotRunError(
        `${where}: no view covers [${table.attributes.join(", ")}], so the answer is a maximum-entropy fit; an ${method} interval would carry the noise but not the model's bias (not a sound ${level} interval): use intervalMethod "bounds" (or "auto")`,
      );
    if (method === "bounds") {
      if (intervalOptions.covariance === true)
        throw new CannotRunError(
          `${where}: [${table.attributes.join(", ")}] gets a bound-based interval (maximum-entropy answer), which has no covariance`,
        );
      const bounds = boundInterval(
        table.attributes,
        table.cardinalities,
        plan.views.map((view) => view.attributes),
        level,
        (attributes, withCovariance) =>
          analyticAnswer(
            analyticInputs(),
            attributes,
            attributes.map((a) => cardinalities[a]!),
            population,
            answer(attributes).table.cells,
            withCovariance,
          ),
      );
      return {
        ...table,
        level,
        lower: bounds.lower,
        upper: bounds.upper,
        standardError: new Float64Array(table.cells.length).fill(Number.NaN),
        intervalMethod: "bounds",
        center: table.cells,
        replicates: 0,
      };
    }
    if (method === "analytic") {
      const { center, variance, covariance } = analyticAnswer(
        analyticInputs(),
        table.attributes,
        table.cardinalities,
        population,
        table.cells,
        intervalOptions.covariance === true,
      );
      return analyticIntervalTable(table, level, z, center, variance, covariance);
    }
    const count = intervalOptions.replicates ?? 200;
    if (!Number.isInteger(count) || count < 2)
      throw new InvalidParameterError(`${where}: replicates must be an integer >= 2 (got ${count})`);
    const seed = intervalOptions.seed ?? 0;
    const replicateAnswers = release
      .replicates(count, seed)
      .map((r) => r.answer(table.attributes).table.cells);
    const bounds = bootstrapBounds(table.cells, replicateAnswers, level);
    return {
      ...table,
      level,
      ...bounds,
      intervalMethod: "bootstrap",
      center: table.cells,
      replicates: count,
      ...(intervalOptions.covariance === true ? { covariance: replicateCovariance(replicateAnswers) } : {}),
    };
  };
}
