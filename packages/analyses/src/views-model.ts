import { createTable, type MarginalTable, projectTable } from "@calm-ldp/marginal-algebra";
import type { ModelStep, SamplingModel, ViewsModelOptions } from "./api.js";
import { fail } from "./errors.js";
import { runningIntersection } from "./running-intersection.js";
import { checkTable } from "./sample-model.js";

/**
 * A sampling model of records from a set of released views (marginal tables over
 * overlapping attribute sets, e.g. CALM's consistent views, or the edge marginals
 * of a Chow-Liu tree). Views are taken greedily: first the view with the most
 * attributes, then repeatedly the view sharing the most attributes with those
 * already drawn (ties: more new attributes, then lower index) among views that
 * bring a new attribute; each becomes a step drawing its new attributes given the
 * shared ones. Views whose attributes are all drawn already add no step.
 *
 * When the views form a decomposable (acyclic) family, e.g. a junction tree, a
 * chain or a tree of 2-way marginals, the greedy order has the running
 * intersection property and the model is exactly the maximum-entropy distribution
 * with those marginals (`decomposable: true`; the views must be consistent, as
 * CALM's post-processed views are). Otherwise (e.g. views covering every pair of
 * a triangle) the model is a Bayesian-network approximation: each view's
 * conditional is kept, but some dependencies between attributes drawn by
 * different steps are only carried through shared attributes (`decomposable:
 * false`, `unusedTables` counts views contained in no step). With
 * `options.cardinalities`, attributes in no view are drawn uniformly.
 *
 * Cost: O(m^2 l) for the order (m views of at most l attributes) plus O(|V|) per
 * view checked; sampling is `sampleModel`'s.
 */
export function viewsModel(views: readonly MarginalTable[], options: ViewsModelOptions = {}): SamplingModel {
  const where = "viewsModel";
  if (!views || typeof views.length !== "number") fail(where, "views must be an array of tables", views);
  views.forEach((view, i) => {
    checkTable(where, view, i);
  });
  const cardinalityOf = new Map<number, number>();
  const note = (a: number, c: number, source: string) => {
    const known = cardinalityOf.get(a);
    if (known !== undefined && known !== c)
      fail(where, `attribute ${a} must have one cardinality (${known}); ${source} has`, c);
    cardinalityOf.set(a, c);
  };
  views.forEach((view, i) => {
    view.attributes.forEach((a, j) => {
      note(a, view.cardinalities[j]!, `view ${i}`);
    });
  });
  if (options.cardinalities) {
    options.cardinalities.forEach((c, a) => {
      if (!Number.isInteger(c) || c < 1)
        fail(where, `options.cardinalities[${a}] must be an integer >= 1`, c);
      note(a, c, "options.cardinalities");
    });
  }
  const wanted = options.attributes
    ? [...options.attributes].sort((x, y) => x - y)
    : [...cardinalityOf.keys()].sort((x, y) => x - y);
  wanted.forEach((a, i) => {
    if (!cardinalityOf.has(a))
      fail(where, `attribute ${a} is in no view: give its cardinality in options.cardinalities`, a);
    if (i > 0 && wanted[i - 1] === a) fail(where, "options.attributes must be distinct", options.attributes);
  });
  if (wanted.length === 0) fail(where, "the model must draw at least one attribute", wanted.length);
  const wantedSet = new Set(wanted);

  // Each view restricted to the wanted attributes (projected when it has others).
  const tables = views
    .map((view) => restrict(view, wantedSet))
    .filter((t): t is MarginalTable => t !== undefined);

  const drawn = new Set<number>();
  const steps: ModelStep[] = [];
  const used = new Array<boolean>(tables.length).fill(false);
  for (;;) {
    let best = -1;
    let bestShared = -1;
    let bestFresh = -1;
    tables.forEach((t, i) => {
      if (used[i]) return;
      const fresh = t.attributes.filter((a) => !drawn.has(a)).length;
      if (fresh === 0) return;
      const shared = t.attributes.length - fresh;
      const better =
        steps.length === 0
          ? t.attributes.length > bestFresh
          : shared > bestShared || (shared === bestShared && fresh > bestFresh);
      if (better) {
        best = i;
        bestShared = shared;
        bestFresh = steps.length === 0 ? t.attributes.length : fresh;
      }
    });
    if (best < 0) break;
    used[best] = true;
    const t = tables[best]!;
    steps.push({
      table: t,
      given: t.attributes.filter((a) => drawn.has(a)),
      fresh: t.attributes.filter((a) => !drawn.has(a)),
    });
    for (const a of t.attributes) drawn.add(a);
  }
  for (const a of wanted) {
    if (drawn.has(a)) continue;
    const c = cardinalityOf.get(a)!;
    const uniform = createTable([a], [c]);
    uniform.cells.fill(1 / c);
    steps.push({ table: uniform, given: [], fresh: [a] });
    drawn.add(a);
  }

  const { decomposable, unusedTables } = runningIntersection(steps, tables);
  return {
    attributes: wanted,
    cardinalities: wanted.map((a) => cardinalityOf.get(a)!),
    steps,
    decomposable,
    unusedTables,
  };
}

/** The view projected onto its wanted attributes (undefined when it has none). O(|V|). */
function restrict(view: MarginalTable, wanted: ReadonlySet<number>): MarginalTable | undefined {
  const attributes = view.attributes.filter((a) => wanted.has(a));
  if (attributes.length === view.attributes.length) return view;
  return attributes.length === 0 ? undefined : projectTable(view, attributes);
}
