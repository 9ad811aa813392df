import { invalid } from "./errors.js";
import { buildGraphicalModel, type GraphicalModel } from "./graphical-model.js";
import { interactionTransform } from "./interaction-basis.js";

/** Options of {@link fitJoint}. */
export interface JointFitOptions {
  /** Cap on mirror-descent steps (tried steps, accepted or not). Default 2000. */
  maxIterations?: number;
  /**
   * Converged when an accepted step at a step size no smaller than the first one
   * moves no view cell by more than `tolerance` (fractions). Default 1e-6.
   */
  tolerance?: number;
  /** Largest junction tree (cells of its largest clique, and of all cliques) the fit may hold. Default 2^22. */
  maxModelCells?: number;
}

/** What {@link fitJoint} returns. */
export interface JointFit {
  /** The graphical model (junction tree) the fit lives in. */
  readonly model: GraphicalModel;
  /** The fitted log-potentials, one per view (cells over its attributes ascending). */
  readonly theta: readonly Float64Array[];
  /** Every view's marginal under the fitted model: non-negative, sum 1, mutually consistent. */
  readonly marginals: readonly Float64Array[];
  /** Mirror-descent steps tried. */
  readonly iterations: number;
  /** False when `maxIterations` ran out (or the step size collapsed) before the tolerance; never hidden. */
  readonly converged: boolean;
  /** The loss at the returned fit (see {@link fitJoint}). */
  readonly loss: number;
}

/**
 * The joint fit: one distribution p, a Markov random field with one potential per
 * view (see `buildGraphicalModel`), fitted to every view's noisy estimate at once
 * by weighted least squares in the orthonormal interaction basis:
 *   minimise L(p) = 1/2 sum_v sum_{u >= 1} w_{v,u} (gamma_{v,u}(mu_v(p)) - t_{v,u})^2,
 * where mu_v(p) is view v's marginal under p, gamma_{v,u} its interaction
 * coefficients (`interactionTransform`, cells ascending by attribute), t_{v,u} the
 * targets and w_{v,u} = 1 / variance their weights (u = 0, the total, is fixed at
 * 1 / sqrt(D_v)). With independent Gaussian noise this is the maximum-likelihood
 * (Private-PGM, McKenna et al. 2019) fit; with posterior means and variances as
 * targets and weights, the Gaussian posterior's mode over the marginal polytope.
 * Consistency and non-negativity hold by construction (every mu_v is a marginal
 * of one distribution). Solver: entropic mirror descent on the log-potentials,
 * theta_v <- theta_v - eta grad_{mu_v} L with grad_{mu_v} L = H^T (w_v * (H mu_v -
 * t_v)) (H the view's orthonormal basis), backtracking eta (halved until
 * L(new) <= L(base) - 1/2 <grad, mu_base - mu_new>, grown by 1.25 after an accepted
 * step), accelerated by FISTA's momentum on theta (base = theta_k + (t_{k-1} - 1) /
 * t_k (theta_k - theta_{k-1})), restarted whenever a step raises the loss (measured:
 * about 5x fewer steps than plain mirror descent to the same tolerance).
 * Cost per step: two junction-tree calibrations (see `GraphicalModel`) plus
 * O(sum_v D_v sum_{a in v} c_a) for the transforms; steps: up to `maxIterations`.
 * Refuses before starting (`CannotRunError`, with the size) when the junction tree
 * would exceed `maxModelCells`.
 */
export function fitJoint(
  cardinalities: readonly number[],
  views: readonly (readonly number[])[],
  targets: readonly Float64Array[],
  weights: readonly Float64Array[],
  options: JointFitOptions = {},
): JointFit {
  const { maxIterations, tolerance, maxModelCells, viewCards } = checkJointInputs(
    cardinalities,
    views,
    targets,
    weights,
    options,
  );
  const model = buildGraphicalModel(cardinalities, views, maxModelCells);
  const lossAndGradient = (mu: readonly Float64Array[]) => jointLoss(mu, viewCards, targets, weights);

  let maxWeight = 0;
  for (const w of weights) for (let u = 1; u < w.length; u++) maxWeight = Math.max(maxWeight, w[u]!);
  let theta = views.map((_, v) => new Float64Array(targets[v]!.length));
  let mu = model.marginals(theta);
  let { loss, gradient } = lossAndGradient(mu);
  const firstStep = maxWeight > 0 ? 1 / maxWeight : 1;
  let step = firstStep;
  let converged = maxWeight === 0;
  let iterations = 0;
  // Momentum (FISTA's extrapolation, restarted whenever the loss goes up).
  let previous = theta;
  let momentum = 1;
  while (!converged && iterations < maxIterations) {
    iterations++;
    const nextMomentum = (1 + Math.sqrt(1 + 4 * momentum * momentum)) / 2;
    const beta = (momentum - 1) / nextMomentum;
    let base = theta;
    let baseMu = mu;
    let baseLoss = loss;
    let baseGradient = gradient;
    if (beta > 0) {
      base = theta.map((t, v) => Float64Array.from(t, (x, i) => x + beta * (x - previous[v]![i]!)));
      baseMu = model.marginals(base);
      if (!normalised(baseMu)) {
        momentum = 1;
        previous = theta;
        continue;
      }
      ({ loss: baseLoss, gradient: baseGradient } = lossAndGradient(baseMu));
    }
    const next = base.map((t, v) => {
      const g = baseGradient[v]!;
      return Float64Array.from(t, (x, i) => x - step * g[i]!);
    });
    const nextMu = model.marginals(next);
    if (!normalised(nextMu)) {
      // The step drove the potentials past floating point (a clique underflowed): too long.
      step /= 2;
      if (step < firstStep * 1e-12) break;
      continue;
    }
    const nextFit = lossAndGradient(nextMu);
    let decrease = 0;
    let change = 0;
    baseMu.forEach((m, v) => {
      const g = baseGradient[v]!;
      const n = nextMu[v]!;
      const old = mu[v]!;
      for (let i = 0; i < m.length; i++) {
        decrease += g[i]! * (m[i]! - n[i]!);
        change = Math.max(change, Math.abs(old[i]! - n[i]!));
      }
    });
    if (nextFit.loss <= baseLoss - 0.5 * decrease) {
      if (nextFit.loss > loss) {
        // Restart: the extrapolation overshot; drop the momentum, keep the current point.
        momentum = 1;
        previous = theta;
        continue;
      }
      previous = theta;
      theta = next;
      mu = nextMu;
      loss = nextFit.loss;
      gradient = nextFit.gradient;
      momentum = nextMomentum;
      if (change <= tolerance && step >= firstStep) converged = true;
      step *= 1.25;
    } else {
      step /= 2;
      if (step < firstStep * 1e-12) break;
    }
  }
  return { model, theta, marginals: mu, iterations, converged, loss };
}

/** True when every marginal is finite and sums to 1 (within 1e-9): no clique underflowed. */
function normalised(marginals: readonly Float64Array[]): boolean {
  for (const m of marginals) {
    let total = 0;
    for (const x of m) total += x;
    if (!(Math.abs(total - 1) <= 1e-9)) return false;
  }
  return true;
}

/**
 * `fitJoint`'s inputs checked (`InvalidParameterError` naming the first bad one:
 * options, cardinalities, ascending in-range view attributes, one finite target
 * and one finite non-negative weight per view cell), with the options' defaults
 * and every view's cardinalities. O(sum of view cells).
 */
function checkJointInputs(
  cardinalities: readonly number[],
  views: readonly (readonly number[])[],
  targets: readonly Float64Array[],
  weights: readonly Float64Array[],
  options: JointFitOptions,
): { maxIterations: number; tolerance: number; maxModelCells: number; viewCards: number[][] } {
  const where = "fitJoint";
  const maxIterations = options.maxIterations ?? 2000;
  if (!Number.isInteger(maxIterations) || maxIterations < 1)
    invalid(where, "maxIterations must be an integer >= 1", maxIterations);
  const tolerance = options.tolerance ?? 1e-6;
  if (!(tolerance > 0) || !Number.isFinite(tolerance))
    invalid(where, "tolerance must be a finite number > 0", tolerance);
  const maxModelCells = options.maxModelCells ?? 2 ** 22;
  if (!(maxModelCells >= 1) || !Number.isFinite(maxModelCells))
    invalid(where, "maxModelCells must be a finite number >= 1", maxModelCells);
  for (const c of cardinalities)
    if (!Number.isInteger(c) || c < 1) invalid(where, "every cardinality must be an integer >= 1", c);
  if (targets.length !== views.length || weights.length !== views.length)
    invalid(
      where,
      `targets and weights need one array per view (${views.length})`,
      `${targets.length}, ${weights.length}`,
    );
  const viewCards = views.map((v, i) => {
    v.forEach((a, j) => {
      if (!Number.isInteger(a) || a < 0 || a >= cardinalities.length)
        invalid(where, `view ${i}: attribute out of range 0..${cardinalities.length - 1}`, a);
      if (j > 0 && a <= v[j - 1]!)
        invalid(where, `view ${i}: attributes must be strictly ascending`, v.join(","));
    });
    const cards = v.map((a) => cardinalities[a]!);
    const size = cards.reduce((s, c) => s * c, 1);
    if (targets[i]!.length !== size || weights[i]!.length !== size)
      invalid(
        where,
        `view ${i}: targets and weights need ${size} entries`,
        `${targets[i]!.length}, ${weights[i]!.length}`,
      );
    for (const t of targets[i]!)
      if (!Number.isFinite(t)) invalid(where, `view ${i}: targets must be finite`, t);
    for (const w of weights[i]!)
      if (!(w >= 0) || !Number.isFinite(w)) invalid(where, `view ${i}: weights must be finite and >= 0`, w);
    return cards;
  });
  return { maxIterations, tolerance, maxModelCells, viewCards };
}

/**
 * The loss L = 1/2 sum_v sum_{u >= 1} w_{v,u} (gamma_{v,u}(mu_v) - t_{v,u})^2 at
 * the marginals `mu` and its gradient in every view's cells, H^T (w_v * (H mu_v -
 * t_v)). O(sum_v D_v sum_{a in v} c_a).
 */
function jointLoss(
  mu: readonly Float64Array[],
  viewCards: readonly (readonly number[])[],
  targets: readonly Float64Array[],
  weights: readonly Float64Array[],
): { loss: number; gradient: Float64Array[] } {
  let loss = 0;
  const gradient = mu.map((m, v) => {
    const g = Float64Array.from(m);
    interactionTransform(g, viewCards[v]!, false);
    const t = targets[v]!;
    const w = weights[v]!;
    g[0] = 0;
    for (let u = 1; u < g.length; u++) {
      const r = g[u]! - t[u]!;
      loss += 0.5 * w[u]! * r * r;
      g[u] = w[u]! * r;
    }
    interactionTransform(g, viewCards[v]!, true);
    return g;
  });
  return { loss, gradient };
}
