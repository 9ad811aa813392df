import { type Rng, sampleWithoutReplacement, shuffle } from "@calm-ldp/random";
import type { BayesNetOptions, BayesNetwork, BayesNode } from "./api.js";
import { fail } from "./errors.js";
import { perAttribute } from "./synthetic-attributes.js";

/** Dirichlet(1, ..., 1) draw (uniform on the simplex): normalised standard exponentials. O(c). */
function flatDirichlet(rng: Rng, c: number): number[] {
  const weights = Array.from({ length: c }, () => -Math.log(1 - rng.nextFloat()));
  const total = weights.reduce((sum, w) => sum + w, 0);
  return weights.map((w) => w / total);
}

/**
 * A random map from a parent's c_p values to a child's c values: random permutations pi (parent values)
 * and sigma (child values), and `map[pi[t]] = sigma[t mod c]`. A bijection when c_p = c, an injection when
 * c_p < c, a balanced surjection when c_p > c, so copying never collapses a parent onto one value. O(c_p + c).
 */
function randomMap(rng: Rng, parentCardinality: number, cardinality: number): number[] {
  const pi = shuffle(
    rng,
    Array.from({ length: parentCardinality }, (_, t) => t),
  );
  const sigma = shuffle(
    rng,
    Array.from({ length: cardinality }, (_, t) => t),
  );
  const map = new Array<number>(parentCardinality);
  for (let t = 0; t < parentCardinality; t++) map[pi[t]!] = sigma[t % cardinality]!;
  return map;
}

/** @internal Validated BN parameters. */
export function bayesNetParameters(where: string, options: Omit<BayesNetOptions, "n">) {
  const { d } = options;
  if (!(Number.isSafeInteger(d) && d >= 1)) fail(where, "d must be an integer >= 1", d);
  const cardinalities = perAttribute(where, "cardinality", options.cardinality ?? 2, d);
  for (const c of cardinalities) {
    if (!(Number.isSafeInteger(c) && c >= 2 && c <= 65536))
      fail(where, "cardinality must be an integer in [2, 65536]", c);
  }
  const maxParents = options.maxParents ?? 2;
  if (!(Number.isSafeInteger(maxParents) && maxParents >= 0))
    fail(where, "maxParents must be an integer >= 0", maxParents);
  const strength = options.strength ?? 0.5;
  if (!(strength >= 0 && strength <= 1)) fail(where, "strength must be in [0, 1]", strength);
  const base = options.base ?? "random";
  if (base !== "random" && base !== "uniform") fail(where, 'base must be "random" or "uniform"', base);
  return { d, cardinalities, maxParents, strength, base };
}

/**
 * A random Bayesian network over d attributes in topological order 0..d-1 (so the first d' attributes of
 * a network are a network themselves). Node i gets exactly min(i, maxParents) parents, drawn uniformly
 * without replacement from 0..i-1 (maxParents = 1: a random recursive tree; 0: no edges); for each parent a
 * random map of its values onto node i's values (see the README); and a base marginal, flat Dirichlet
 * (`base: "random"`) or uniform. The conditionals are noisy copies with strength s:
 * `P(x_i = x | u) = (1 - s) base_i(x) + (s / k) sum_j [map_j(u_j) = x]` for k parents (roots: base_i).
 * O(d * (maxParents * c + c)).
 */
export function randomBayesNetwork(options: Omit<BayesNetOptions, "n">, rng: Rng): BayesNetwork {
  const { d, cardinalities, maxParents, strength, base } = bayesNetParameters("randomBayesNetwork", options);
  const nodes: BayesNode[] = [];
  for (let i = 0; i < d; i++) {
    const k = Math.min(i, maxParents);
    const parents = k === 0 ? [] : Array.from(shuffle(rng, Array.from(sampleWithoutReplacement(rng, i, k))));
    const c = cardinalities[i]!;
    const maps = parents.map((parent) => randomMap(rng, cardinalities[parent]!, c));
    const marginal = base === "random" ? flatDirichlet(rng, c) : Array.from({ length: c }, () => 1 / c);
    nodes.push({ parents, maps, base: marginal });
  }
  return { cardinalities, strength, nodes };
}
