import { projectionMap } from "@calm-ldp/marginal-algebra";
import { CannotRunError } from "./errors.js";

/**
 * A pairwise-or-higher Markov random field over d attributes with one
 * log-potential theta_v per measured attribute set (a view):
 *   p(x) = exp(sum_v theta_v(x_v)) / Z,
 * the exponential family whose sufficient statistics are the views' marginals
 * (Private-PGM's model, McKenna et al. 2019). Exact inference runs on a junction
 * tree: the views' interaction graph is triangulated by greedy min-fill
 * elimination; eliminating attribute x_i with its not-yet-eliminated neighbours
 * S_i gives the clique C_i = {x_i} u S_i, whose parent is the clique of the first
 * attribute of S_i to be eliminated (an elimination tree, running intersection by
 * construction; attributes in no view are singleton roots). Calibration is one
 * upward pass (message m_i = sum_{x_i} psi_i prod_children m_c over S_i) and one
 * downward pass (b_i = psi_i prod_children m_c * (b_parent projected on S_i) / m_i).
 * Cost per calibration: O(sum_i |C_i| (1 + views in C_i + children of i)) array
 * steps, where |C_i| = prod_{a in C_i} c_a; the size is fixed by the views'
 * graph (its treewidth), not by n. A CALM plan whose views cover every pair has a
 * complete graph: one clique, the whole domain prod_a c_a.
 * @internal
 */
export interface GraphicalModel {
  /** Cardinality of every attribute. */
  readonly cardinalities: readonly number[];
  /** The measured attribute sets (ascending), one log-potential each. */
  readonly views: readonly (readonly number[])[];
  /** The junction tree's cliques (attributes ascending), in elimination order. */
  readonly cliques: readonly (readonly number[])[];
  /** Cells of the largest clique and of all cliques together. */
  readonly largestClique: number;
  readonly totalCells: number;
  /**
   * Calibrates the tree for the log-potentials `theta` (one array per view, its
   * cells row-major over the view's attributes, first most significant) and
   * returns every view's marginal under the model (fractions, sum 1).
   */
  marginals(theta: readonly Float64Array[]): Float64Array[];
  /**
   * The model's marginal over `attributes` (ascending, fractions) for `theta`, by
   * variable elimination of the other attributes (greedy smallest-factor order).
   * Refuses with `CannotRunError` (naming the size) when an intermediate factor
   * would exceed `maxCells`. Cost: the sum of the intermediate factors' cells.
   */
  query(theta: readonly Float64Array[], attributes: readonly number[], maxCells: number): Float64Array;
}

/** The logarithm of a non-negative function of `attributes` (ascending), cells row-major (first most significant). */
interface Factor {
  attributes: number[];
  values: Float64Array;
}

function cellsOf(attributes: readonly number[], cardinalities: readonly number[]): number {
  let size = 1;
  for (const a of attributes) size *= cardinalities[a]!;
  return size;
}

/**
 * For every cell of the table over `big` (ascending), the index of its
 * sub-cell in the table over `small` (ascending, a subset of `big`):
 * marginal-algebra's `projectionMap`. O(|big| cells).
 */
function subIndex(
  big: readonly number[],
  small: readonly number[],
  cardinalities: readonly number[],
): Uint32Array {
  return projectionMap(
    big.map((a) => cardinalities[a]!),
    small.map((a) => big.indexOf(a)),
  );
}

function union(a: readonly number[], b: readonly number[]): number[] {
  return [...new Set([...a, ...b])].sort((x, y) => x - y);
}

/** The product of `factors` over the union of their attributes. O(union cells * factors). */
function product(factors: readonly Factor[], cardinalities: readonly number[]): Factor {
  let attributes: number[] = [];
  for (const f of factors) attributes = union(attributes, f.attributes);
  const values = new Float64Array(cellsOf(attributes, cardinalities));
  for (const f of factors) {
    const map = subIndex(attributes, f.attributes, cardinalities);
    for (let i = 0; i < values.length; i++) values[i]! += f.values[map[i]!]!;
  }
  return { attributes, values };
}

/**
 * Sums `factor` over every attribute not in `keep` (ascending subset), in the log
 * domain (log-sum-exp, so no potential underflows). O(factor cells).
 */
function project(factor: Factor, keep: readonly number[], cardinalities: readonly number[]): Factor {
  const map = subIndex(factor.attributes, keep, cardinalities);
  const size = cellsOf(keep, cardinalities);
  const max = new Float64Array(size).fill(Number.NEGATIVE_INFINITY);
  for (let i = 0; i < map.length; i++)
    if (factor.values[i]! > max[map[i]!]!) max[map[i]!] = factor.values[i]!;
  const sums = new Float64Array(size);
  for (let i = 0; i < map.length; i++) sums[map[i]!]! += Math.exp(factor.values[i]! - max[map[i]!]!);
  return { attributes: [...keep], values: Float64Array.from(sums, (x, j) => max[j]! + Math.log(x)) };
}

/**
 * Builds the junction tree for `views` (attribute sets) over attributes with
 * `cardinalities`. Refuses with `CannotRunError` when the largest clique or the
 * tree's total exceeds `maxCells`, naming the size it would need. Cost of the
 * construction: O(d^3) for the elimination plus O(total cells * views) for the
 * index maps, reused by every calibration.
 */
export function buildGraphicalModel(
  cardinalities: readonly number[],
  views: readonly (readonly number[])[],
  maxCells: number,
): GraphicalModel {
  const d = cardinalities.length;
  const sortedViews = views.map((v) => [...v].sort((x, y) => x - y));
  // Greedy elimination by three rules (min-fill then min-cells, min-fill alone, min-cells);
  // the order with the fewest junction-tree cells in all is kept.
  let best: { eliminated: number[]; separators: number[][]; total: number } | undefined;
  for (const rule of ["fill-cells", "fill", "cells"] as const) {
    const order = eliminationOrder(sortedViews, cardinalities, rule);
    if (!best || order.total < best.total) best = order;
  }
  const { eliminated, separators } = best!;
  const position = new Array<number>(d);
  eliminated.forEach((x, i) => {
    position[x] = i;
  });
  const cliques = eliminated.map((x, i) => union([x], separators[i]!));
  const cliqueCells = cliques.map((c) => cellsOf(c, cardinalities));
  const largestClique = Math.max(1, ...cliqueCells);
  const totalCells = cliqueCells.reduce((s, x) => s + x, 0);
  if (largestClique > maxCells || totalCells > maxCells)
    throw new CannotRunError(
      `graphical model: the views' junction tree needs a clique of ${largestClique} cells (${totalCells} in all ${cliques.length} cliques), above the limit of ${maxCells} cells`,
    );
  const parent = separators.map((s) => (s.length === 0 ? -1 : Math.min(...s.map((a) => position[a]!))));
  const children: number[][] = cliques.map(() => []);
  parent.forEach((p, i) => {
    if (p >= 0) children[p]!.push(i);
  });
  // Each view lives in the clique of its first-eliminated attribute (which holds all of them).
  const home = sortedViews.map((v) => (v.length === 0 ? -1 : Math.min(...v.map((a) => position[a]!))));
  const assigned: number[][] = cliques.map(() => []);
  home.forEach((c, v) => {
    if (c >= 0) assigned[c]!.push(v);
  });
  const viewMaps = cliques.map((c, i) =>
    assigned[i]!.map((v) => subIndex(c, sortedViews[v]!, cardinalities)),
  );
  const separatorMaps = cliques.map((c, i) => subIndex(c, separators[i]!, cardinalities));
  // separatorInParent[i]: clique-cell of parent(i) -> cell of separator i.
  const separatorInParent = cliques.map((_, i) =>
    parent[i]! >= 0 ? subIndex(cliques[parent[i]!]!, separators[i]!, cardinalities) : new Uint32Array(0),
  );
  const viewCells = sortedViews.map((v) => cellsOf(v, cardinalities));
  const tree: JunctionTree = {
    cardinalities,
    sortedViews,
    cliques,
    cliqueCells,
    separators,
    parent,
    children,
    home,
    assigned,
    viewMaps,
    separatorMaps,
    separatorInParent,
    viewCells,
  };
  return {
    cardinalities,
    views: sortedViews,
    cliques,
    largestClique,
    totalCells,
    marginals: (theta) => calibrate(tree, theta),
    query: (theta, attributes, maxQuery) =>
      eliminate(sortedViews, cardinalities, theta, attributes, maxQuery),
  };
}

/** The junction tree of `buildGraphicalModel` and its index maps, as calibration reads them. */
interface JunctionTree {
  readonly cardinalities: readonly number[];
  readonly sortedViews: readonly (readonly number[])[];
  readonly cliques: readonly (readonly number[])[];
  readonly cliqueCells: readonly number[];
  /** Clique i's separator S_i and its parent clique (-1 for a root), and its children. */
  readonly separators: readonly (readonly number[])[];
  readonly parent: readonly number[];
  readonly children: readonly (readonly number[])[];
  /** The clique each view lives in (-1 for an empty view), and the views of each clique. */
  readonly home: readonly number[];
  readonly assigned: readonly (readonly number[])[];
  /** Per clique, per assigned view: clique cell -> view cell. */
  readonly viewMaps: readonly (readonly Uint32Array[])[];
  /** Per clique: clique cell -> separator cell; and parent's clique cell -> separator cell. */
  readonly separatorMaps: readonly Uint32Array[];
  readonly separatorInParent: readonly Uint32Array[];
  readonly viewCells: readonly number[];
}

/**
 * `GraphicalModel.marginals`: the tree calibrated for `theta` (one upward, one
 * downward pass, see `GraphicalModel`) and every view's marginal read off its
 * home clique. Cost: see `GraphicalModel`.
 */
function calibrate(tree: JunctionTree, theta: readonly Float64Array[]): Float64Array[] {
  const { cardinalities, sortedViews, cliques, cliqueCells, separators, parent, children, home, assigned } =
    tree;
  const { viewMaps, separatorMaps, separatorInParent, viewCells } = tree;
  const potentials: Float64Array[] = cliques.map((_, i) => {
    const log = new Float64Array(cliqueCells[i]!);
    assigned[i]!.forEach((v, j) => {
      const map = viewMaps[i]![j]!;
      const t = theta[v]!;
      for (let x = 0; x < log.length; x++) log[x]! += t[map[x]!]!;
    });
    let max = Number.NEGATIVE_INFINITY;
    for (const x of log) if (x > max) max = x;
    for (let x = 0; x < log.length; x++) log[x] = Math.exp(log[x]! - max);
    return log;
  });
  // Upward: f_i = psi_i * prod_children m_c; m_i = sum over x_i of f_i (scaled to sum 1).
  const messages: Float64Array[] = new Array(cliques.length);
  for (let i = 0; i < cliques.length; i++) {
    const f = potentials[i]!;
    for (const c of children[i]!) {
      const map = separatorInParent[c]!;
      const m = messages[c]!;
      for (let x = 0; x < f.length; x++) f[x]! *= m[map[x]!]!;
    }
    const m = new Float64Array(cellsOf(separators[i]!, cardinalities));
    const map = separatorMaps[i]!;
    for (let x = 0; x < f.length; x++) m[map[x]!]! += f[x]!;
    scaleToOne(m);
    messages[i] = m;
  }
  // Downward: b_i = f_i * (b_parent on S_i) / m_i, from the roots (last eliminated) down.
  for (let i = cliques.length - 1; i >= 0; i--) {
    const f = potentials[i]!;
    if (parent[i]! >= 0) {
      const b = potentials[parent[i]!]!;
      const down = new Float64Array(messages[i]!.length);
      const inParent = separatorInParent[i]!;
      for (let x = 0; x < b.length; x++) down[inParent[x]!]! += b[x]!;
      const m = messages[i]!;
      for (let s = 0; s < down.length; s++) down[s] = m[s]! > 0 ? down[s]! / m[s]! : 0;
      const map = separatorMaps[i]!;
      for (let x = 0; x < f.length; x++) f[x]! *= down[map[x]!]!;
    }
    scaleToOne(f);
  }
  return sortedViews.map((_, v) => {
    const out = new Float64Array(viewCells[v]!);
    const c = home[v]!;
    if (c < 0) {
      out[0] = 1;
      return out;
    }
    const map = viewMaps[c]![assigned[c]!.indexOf(v)]!;
    const b = potentials[c]!;
    for (let x = 0; x < b.length; x++) out[map[x]!]! += b[x]!;
    return out;
  });
}

/**
 * `GraphicalModel.query`: the marginal over `attributes` by variable elimination
 * in the log domain (greedy: the attribute whose combined factor is smallest
 * first). Refuses (`CannotRunError`) an intermediate or final table above
 * `maxQuery` cells. Cost: the sum of the intermediate factors' cells.
 */
function eliminate(
  sortedViews: readonly number[][],
  cardinalities: readonly number[],
  theta: readonly Float64Array[],
  attributes: readonly number[],
  maxQuery: number,
): Float64Array {
  const keep = new Set(attributes);
  // Variable elimination in the log domain (potentials far apart must not underflow).
  let factors: Factor[] = sortedViews.map((v, i) => ({ attributes: v, values: theta[i]! }));
  const others = new Set<number>();
  for (const v of sortedViews) for (const a of v) if (!keep.has(a)) others.add(a);
  while (others.size > 0) {
    // Greedy: eliminate the attribute whose combined factor is smallest.
    let best = -1;
    let bestCells = Number.POSITIVE_INFINITY;
    for (const x of others) {
      let scope: number[] = [];
      for (const f of factors) if (f.attributes.includes(x)) scope = union(scope, f.attributes);
      const cells = cellsOf(scope, cardinalities);
      if (cells < bestCells) {
        best = x;
        bestCells = cells;
      }
    }
    if (bestCells > maxQuery)
      throw new CannotRunError(
        `graphical model: answering the query over [${attributes.join(", ")}] needs an intermediate table of ${bestCells} cells, above the limit of ${maxQuery}`,
      );
    const touching = factors.filter((f) => f.attributes.includes(best));
    const joined = product(touching, cardinalities);
    const reduced = project(
      joined,
      joined.attributes.filter((a) => a !== best),
      cardinalities,
    );
    factors = [...factors.filter((f) => !f.attributes.includes(best)), reduced];
    others.delete(best);
  }
  const target = [...attributes].sort((x, y) => x - y);
  const targetCells = cellsOf(target, cardinalities);
  if (targetCells > maxQuery)
    throw new CannotRunError(
      `graphical model: the query over [${attributes.join(", ")}] needs a table of ${targetCells} cells, above the limit of ${maxQuery}`,
    );
  const relevant = factors.filter((f) => f.attributes.length > 0);
  const joint = product(
    [{ attributes: target, values: new Float64Array(targetCells) }, ...relevant],
    cardinalities,
  );
  const log = project(joint, target, cardinalities).values;
  let max = Number.NEGATIVE_INFINITY;
  for (const x of log) if (x > max) max = x;
  const out = Float64Array.from(log, (x) => Math.exp(x - max));
  scaleToOne(out);
  return out;
}

/**
 * A greedy elimination order of the views' interaction graph: at every step the
 * attribute with the fewest fill-in edges (ties: smallest clique), the fewest
 * fill-in edges (ties: lowest index), or the smallest clique. Returns every
 * eliminated attribute's separator (its neighbours not yet eliminated) and the
 * total cells of the elimination cliques. O(d^3).
 */
function eliminationOrder(
  views: readonly (readonly number[])[],
  cardinalities: readonly number[],
  rule: "fill-cells" | "fill" | "cells",
): { eliminated: number[]; separators: number[][]; total: number } {
  const d = cardinalities.length;
  const adjacency = Array.from({ length: d }, () => new Set<number>());
  for (const v of views) for (const a of v) for (const b of v) if (a !== b) adjacency[a]!.add(b);
  const alive = new Set(Array.from({ length: d }, (_, i) => i));
  const eliminated: number[] = [];
  const separators: number[][] = [];
  let total = 0;
  while (alive.size > 0) {
    let best = -1;
    let bestKey: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
    for (const x of alive) {
      const neighbours = [...adjacency[x]!].filter((y) => alive.has(y));
      let fill = 0;
      if (rule !== "cells")
        for (let i = 0; i < neighbours.length; i++)
          for (let j = i + 1; j < neighbours.length; j++)
            if (!adjacency[neighbours[i]!]!.has(neighbours[j]!)) fill++;
      const cells = cellsOf(neighbours, cardinalities) * cardinalities[x]!;
      const key: [number, number] =
        rule === "cells" ? [cells, 0] : rule === "fill" ? [fill, 0] : [fill, cells];
      if (key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = x;
        bestKey = key;
      }
    }
    const neighbours = [...adjacency[best]!].filter((y) => alive.has(y)).sort((x, y) => x - y);
    for (const a of neighbours) for (const b of neighbours) if (a !== b) adjacency[a]!.add(b);
    total += cellsOf(neighbours, cardinalities) * cardinalities[best]!;
    eliminated.push(best);
    separators.push(neighbours);
    alive.delete(best);
  }
  return { eliminated, separators, total };
}

function scaleToOne(values: Float64Array): void {
  let total = 0;
  for (const x of values) total += x;
  if (total > 0) for (let i = 0; i < values.length; i++) values[i]! /= total;
}
