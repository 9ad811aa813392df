import { interactionTransform } from "./interaction-basis.js";
import { mixtureWeights } from "./mixture-weights.js";
import { distinctPermutations } from "./permutations.js";

/** Largest number of categories the shape prior handles (its atoms are every permutation of every profile). */
export const SHAPE_MAX_CARDINALITY = 4;
/** Fewest attributes of one cardinality the shape prior is fitted to (fewer: too little to fit a prior). */
export const SHAPE_MIN_ATTRIBUTES = 4;
/** Grid resolution 1/K of the profiles: K = 50 for 3 categories (step 0.02), 25 for 4 (step 0.04). */
const GRID_STEPS: Readonly<Record<number, number>> = { 2: 100, 3: 50, 4: 25 };
/** EM iterations of the profile weights (the marginal likelihood is concave in them). */
const SHAPE_ITERATIONS = 300;

/** One attribute's pooled one-way marginal in the Helmert basis and its coefficients' noise variances. */
export interface ShapeInput {
  /** Pooled (unshrunk) coefficients beta_{a,1..c-1} of the one-way marginal in the orthonormal Helmert basis. */
  readonly coefficients: Float64Array;
  /** Their noise variances tau^2 (1 / pooled precision). */
  readonly variances: Float64Array;
}

/** The posterior mean of one attribute's coefficients and its shrinkage factor. */
export interface ShapeOutput {
  readonly coefficients: Float64Array;
  /** log of the marginal density of the attribute's coefficients under the fitted prior (normal noise). */
  readonly logDensity: number;
  /** Mean posterior variance / tau^2 over the coefficients, in [0, 1] (a normal prior's factor f has variance f tau^2). */
  readonly factor: number;
}

/**
 * Empirical-Bayes shape prior for the one-way marginals of attributes with the
 * same number of categories c (3 <= c <= 4 in calm-plus). The prior is
 * permutation-invariant: an attribute's marginal is a profile s (sorted cell
 * values on a grid of step 1/K of the simplex) with its categories in a uniformly
 * random order, so the categories' labels carry no information and only the
 * shape is shared ("one large cell and two small ones" is typical, whichever
 * category is large). The profile weights w_s are fitted by maximum marginal
 * likelihood over the attributes (EM, a nonparametric maximum-likelihood prior),
 * then mixed with a flat share over the grid (`signalShare`); each attribute's
 * estimate is its posterior mean sum_atoms P(atom | x) alpha(atom), where x are
 * its pooled Helmert coefficients with independent normal noise of variances
 * tau_j^2 (as pooled) and alpha(atom) the atom's coefficients. Non-negative and
 * summing to 1 by construction (a convex combination of points of the simplex).
 * Cost: O(N A c) for the likelihoods of N attributes under A atoms (c = 3: ~1,300
 * atoms; c = 4: ~4,500) plus O(N P iterations) for the EM over the P profiles
 * (c = 3: ~230; c = 4: ~200), independent of d beyond N and of the views.
 */
export function shapePosterior(
  inputs: readonly ShapeInput[],
  c: number,
  flatShare: number = signalShare(inputs),
): ShapeOutput[] {
  const { atoms, profileOf, multiplicity, profiles } = shapeAtoms(c);
  const dims = c - 1;
  const atomCount = profileOf.length;
  const n = inputs.length;
  // likelihood[i * atomCount + t] = exp(loglik - max_t loglik) of attribute i under atom t.
  const likelihood = new Float64Array(n * atomCount);
  const offsets = new Float64Array(n);
  inputs.forEach((input, i) => {
    let best = Number.NEGATIVE_INFINITY;
    for (let t = 0; t < atomCount; t++) {
      let loglik = 0;
      for (let j = 0; j < dims; j++) {
        const diff = input.coefficients[j]! - atoms[t * dims + j]!;
        loglik -= (0.5 * diff * diff) / input.variances[j]!;
      }
      likelihood[i * atomCount + t] = loglik;
      if (loglik > best) best = loglik;
    }
    for (let t = 0; t < atomCount; t++)
      likelihood[i * atomCount + t] = Math.exp(likelihood[i * atomCount + t]! - best);
    offsets[i] = best;
    for (let j = 0; j < dims; j++) offsets[i]! -= 0.5 * Math.log(2 * Math.PI * input.variances[j]!);
  });
  // The prior spreads a profile's weight evenly over its orderings, so the EM only needs each
  // attribute's mean likelihood per profile: profileLikelihood[i * profiles + g].
  const profileLikelihood = new Float64Array(n * profiles);
  for (let i = 0; i < n; i++)
    for (let t = 0; t < atomCount; t++)
      profileLikelihood[i * profiles + profileOf[t]!]! += likelihood[i * atomCount + t]! / multiplicity[t]!;
  const weights = mixtureWeights(profileLikelihood, n, profiles, SHAPE_ITERATIONS);
  for (let g = 0; g < profiles; g++) weights[g] = (1 - flatShare) * weights[g]! + flatShare / profiles;
  const prior = Float64Array.from(profileOf, (g, t) => weights[g]! / multiplicity[t]!);
  return inputs.map((input, i) => {
    let total = 0;
    const mean = new Float64Array(dims);
    const square = new Float64Array(dims);
    for (let t = 0; t < atomCount; t++) {
      const p = prior[t]! * likelihood[i * atomCount + t]!;
      total += p;
      for (let j = 0; j < dims; j++) {
        const a = atoms[t * dims + j]!;
        mean[j]! += p * a;
        square[j]! += p * a * a;
      }
    }
    let factor = 0;
    for (let j = 0; j < dims; j++) {
      mean[j]! /= total;
      const variance = Math.max(0, square[j]! / total - mean[j]! * mean[j]!);
      factor += Math.min(1, variance / input.variances[j]!) / dims;
    }
    return { coefficients: mean, factor, logDensity: offsets[i]! + Math.log(total) };
  });
}

/**
 * The flat share of the shape prior: the signal fraction A / (A + T) of the
 * attributes' coefficients, for the moment estimate A = max(0, mean(beta^2 -
 * tau^2)) (spread about 0, the uniform marginal) and the mean noise variance T (1
 * without noise). Where the views are precise (A >> T), an attribute's own
 * evidence suffices and the profile weights fitted to a handful of attributes could
 * only add their fitting error, so the prior is nearly flat on the simplex; where
 * they are noisy, the fitted shapes get the noise's share. Measured on Adult d = 15,
 * c = 3 (3 seeds x 4 repetitions, query SSE against the "contrasts" prior, eps
 * 0.2 / 0.5 / 0.8 / 1): this share -10.9% / -0.5% / +0.2% / +0.3%; a fixed share of
 * 0.2: -12.0% / +2.6% / - / +1.1%; 0.5: -11.6% / +0.7% / - / +0.8%; 0.8: -9.2% / -0.5% / - / +0.4%.
 */
export function signalShare(inputs: readonly ShapeInput[]): number {
  let excess = 0;
  let noise = 0;
  let count = 0;
  for (const { coefficients, variances } of inputs)
    for (let j = 0; j < coefficients.length; j++) {
      excess += coefficients[j]! * coefficients[j]! - variances[j]!;
      noise += variances[j]!;
      count++;
    }
  const signal = Math.max(0, excess / count);
  const tau2 = noise / count;
  return signal + tau2 > 0 ? signal / (signal + tau2) : 1;
}

interface Atoms {
  /** Helmert coefficients 1..c-1 of every atom, row-major (atoms x (c-1)). */
  atoms: Float64Array;
  /** The profile of every atom. */
  profileOf: Int32Array;
  /** The number of distinct orderings of the atom's profile. */
  multiplicity: Float64Array;
  profiles: number;
}

const atomCache = new Map<number, Atoms>();

/** Every distinct ordering of every sorted profile on the grid of step 1/K, in Helmert coordinates (cached per c). */
function shapeAtoms(c: number): Atoms {
  const cached = atomCache.get(c);
  if (cached) return cached;
  const steps = GRID_STEPS[c];
  if (steps === undefined) throw new RangeError(`shapePosterior: no profile grid for ${c} categories`);
  const sorted: number[][] = [];
  const build = (prefix: number[], left: number, cap: number) => {
    if (prefix.length === c - 1) {
      if (left <= cap) sorted.push([...prefix, left]);
      return;
    }
    for (let v = Math.min(cap, left); v >= 0; v--) {
      // The remaining c - 1 - prefix.length cells are each <= v, so they hold at most that much.
      if (left - v > v * (c - 1 - prefix.length)) break;
      build([...prefix, v], left - v, v);
    }
  };
  build([], steps, steps);
  const coefficients: number[] = [];
  const profileOf: number[] = [];
  const multiplicity: number[] = [];
  sorted.forEach((profile, g) => {
    const orderings = distinctPermutations(profile);
    for (const ordering of orderings) {
      const cells = Float64Array.from(ordering, (v) => v / steps);
      interactionTransform(cells, [c], false);
      for (let j = 1; j < c; j++) coefficients.push(cells[j]!);
      profileOf.push(g);
      multiplicity.push(orderings.length);
    }
  });
  const result: Atoms = {
    atoms: Float64Array.from(coefficients),
    profileOf: Int32Array.from(profileOf),
    multiplicity: Float64Array.from(multiplicity),
    profiles: sorted.length,
  };
  atomCache.set(c, result);
  return result;
}
