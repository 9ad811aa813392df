import type { CalmPlan, CalmReport } from "@calm-ldp/calm-core";
import { createRandomReportId, createReport, encodeReport, type WireReport } from "@calm-ldp/client";
import { type Rng, uniformInt } from "@calm-ldp/random";
import { unaryPq } from "../defences/unary-report-check.js";
import { InvalidParameterError } from "../errors.js";

export { unaryPq };

/** The attacks of the suite (see docs/threat-model.md). */
export const ATTACKS = [
  "none",
  "random-value",
  "random-item",
  "mga",
  "mga-honest-count",
  "mga-grind-view",
  "sybil",
] as const;
export type AttackName = (typeof ATTACKS)[number];

/** The cell an attacker wants to raise: attributes (ascending) and their values. */
export interface AttackTarget {
  readonly attributes: readonly number[];
  readonly values: readonly number[];
}

/**
 * `--target a,b=1,1` (names or indices) against the plan's schema: the attributes
 * sorted ascending with their values. Throws `InvalidParameterError` naming the problem.
 */
export function parseTarget(plan: CalmPlan, text: string): AttackTarget {
  const [left, right] = text.split("=");
  const names = (left ?? "").split(",").map((s) => s.trim());
  const values = (right ?? "").split(",").map((s) => s.trim());
  if (!left || !right || names.length !== values.length)
    throw new InvalidParameterError(
      `--target must be <attrs>=<values>, e.g. 0,1=1,1 (got ${JSON.stringify(text)})`,
    );
  const attributes = plan.schema.attributes;
  const pairs = names.map((name, i) => {
    const index = /^\d+$/.test(name) ? Number(name) : attributes.findIndex((a) => a.name === name);
    const spec = attributes[index];
    if (!spec) throw new InvalidParameterError(`--target: no attribute ${JSON.stringify(name)}`);
    const label = values[i]!;
    const value = /^\d+$/.test(label) ? Number(label) : spec.labels.indexOf(label);
    if (!(value >= 0 && value < spec.labels.length))
      throw new InvalidParameterError(
        `--target: attribute ${spec.name} has no value ${JSON.stringify(label)}`,
      );
    return [index, value] as const;
  });
  pairs.sort((a, b) => a[0] - b[0]);
  if (new Set(pairs.map((p) => p[0])).size !== pairs.length)
    throw new InvalidParameterError("--target: an attribute appears twice");
  return { attributes: pairs.map((p) => p[0]), values: pairs.map((p) => p[1]) };
}

/** The view an attacker who may choose would claim: the smallest view covering the target, else the one covering most of it. */
export function targetView(plan: CalmPlan, target: AttackTarget): number {
  let best = 0;
  let bestScore = -1;
  plan.views.forEach((view, v) => {
    const covered = target.attributes.filter((a) => view.attributes.includes(a)).length;
    const score = covered * 1e9 - view.cells;
    if (score > bestScore) [best, bestScore] = [v, score];
  });
  return best;
}

/** The cells of view `v` whose projection on the target attributes it covers equals the target (all cells if it covers none). */
export function matchingCells(plan: CalmPlan, v: number, target: AttackTarget): number[] {
  const view = plan.views[v]!;
  const cards = view.attributes.map((a) => plan.schema.attributes[a]!.labels.length);
  const out: number[] = [];
  for (let cell = 0; cell < view.cells; cell++) {
    let rest = cell;
    let match = true;
    for (let j = view.attributes.length - 1; j >= 0; j--) {
      const value = rest % cards[j]!;
      rest = Math.floor(rest / cards[j]!);
      const t = target.attributes.indexOf(view.attributes[j]!);
      if (t >= 0 && target.values[t] !== value) match = false;
    }
    if (match) out.push(cell);
  }
  return out;
}

/** A unary report with exactly these bits set. */
function unaryReport(plan: CalmPlan, view: number, cells: Iterable<number>, id: string): WireReport {
  const words = new Uint32Array((plan.views[view]!.cells + 31) >>> 5);
  for (const c of cells) words[c >>> 5]! |= 1 << (c & 31);
  return encodeReport(plan, { view, report: words } as CalmReport, id);
}

/**
 * One fake report in view `view` (what a fake client sends; the view is its own
 * choice when unprotected, the token's when protected):
 * - `random-value`: GRR a uniform value; unary every bit a fair coin (Cao et al. RPA);
 * - `random-item`: a record with the target values, other attributes uniform, perturbed honestly (RIA);
 * - `mga`, `mga-grind-view`, `sybil` (maximal gain, MGA): GRR a uniform cell among those
 *   matching the target; unary all matching bits set, padded with random other bits
 *   to the expected number of ones round(p + (cells - 1) q);
 * - `mga-honest-count` (MGA evading the unary-ones test): as `mga`, but a unary
 *   report sets b = floor(mu) or ceil(mu) bits, mu = p + (cells - 1) q, with mean
 *   exactly mu (a uniform subset of the matching cells when they are more than b),
 *   so every view's expected count of ones is the honest one.
 * O(cells of the view).
 */
export function craftReport(
  attack: AttackName,
  plan: CalmPlan,
  target: AttackTarget,
  view: number,
  rng: Rng,
  id: string = createRandomReportId(rng),
): WireReport {
  const spec = plan.views[view]!;
  const grr = spec.oracle === "grr";
  if (attack === "random-value") {
    if (grr) return { id, view, value: uniformInt(rng, spec.cells) };
    const set: number[] = [];
    for (let c = 0; c < spec.cells; c++) if (rng.nextUint32() & 1) set.push(c);
    return unaryReport(plan, view, set, id);
  }
  if (attack === "random-item") {
    const record = plan.schema.attributes.map((a, i) => {
      const t = target.attributes.indexOf(i);
      return t >= 0 ? target.values[t]! : uniformInt(rng, a.labels.length);
    });
    return createReport(plan, record, { view, id, rng });
  }
  if (attack === "none") throw new InvalidParameterError("craftReport: attack none sends no fake reports");
  const matching = matchingCells(plan, view, target);
  if (grr) return { id, view, value: matching[uniformInt(rng, matching.length)]! };
  const { p, q } = unaryPq(spec.oracle, plan.eps);
  const mu = p + (spec.cells - 1) * q;
  // mga: round(mu) ones; mga-honest-count: floor(mu) or ceil(mu) with mean exactly mu.
  const ones =
    attack === "mga-honest-count"
      ? Math.floor(mu) + (rng.nextUint32() / 2 ** 32 < mu % 1 ? 1 : 0)
      : Math.round(mu);
  const set = new Set(matching.length === spec.cells ? [] : matching);
  if (attack === "mga-honest-count" && set.size > ones) {
    const keep = [...set];
    for (let i = keep.length - 1; i > 0; i--) {
      const j = uniformInt(rng, i + 1);
      [keep[i], keep[j]] = [keep[j]!, keep[i]!];
    }
    set.clear();
    for (const c of keep.slice(0, ones)) set.add(c);
  }
  const others = Array.from({ length: spec.cells }, (_, c) => c).filter((c) => !set.has(c));
  for (let i = others.length - 1; i > 0; i--) {
    const j = uniformInt(rng, i + 1);
    [others[i], others[j]] = [others[j]!, others[i]!];
  }
  for (let i = 0; set.size < ones && i < others.length; i++) set.add(others[i]!);
  return unaryReport(plan, view, set, id);
}
