import type { Rng } from "@calm-ldp/random";
import type { BayesNetDataset, BayesNetOptions } from "./api.js";
import { bayesNetParameters, randomBayesNetwork } from "./bayes-network.js";
import { fail } from "./errors.js";
import { finishDataset } from "./finish-dataset.js";
import { sampleBayesNetwork } from "./sample-bayes-network.js";
import { syntheticAttribute } from "./synthetic-attributes.js";

/**
 * n records of d correlated attributes from a random Bayesian network (see `randomBayesNetwork` for the
 * structure and `BayesNetOptions.strength` for the knob): the network is drawn from `networkRng` (default
 * `rng`), the records from `rng`, so one network can generate many independent populations. Returns the
 * network with the data. Attributes are named x0..x{d-1}, labels "0".."c-1". O(n * d * (k + c)).
 * `synthetic:bn?strength=0.5&parents=2&cardinality=2&seed=7` in the CLI.
 */
export function generateBayesNet(options: BayesNetOptions, rng: Rng, networkRng: Rng = rng): BayesNetDataset {
  const where = "generateBayesNet";
  const { n } = options;
  if (!(Number.isSafeInteger(n) && n >= 1 && n <= 2 ** 32))
    fail(where, "n must be an integer in [1, 2^32]", n);
  const { d, cardinalities, maxParents, strength, base } = bayesNetParameters(where, options);
  const network = randomBayesNetwork(
    { d, cardinality: cardinalities, maxParents, strength, base },
    networkRng,
  );
  const columns = sampleBayesNetwork(network, n, rng);
  const edges = network.nodes.reduce((sum, node) => sum + node.parents.length, 0);
  const dataset = finishDataset(
    {
      attributes: cardinalities.map((c, i) => syntheticAttribute(i, c)),
      columns,
      rows: n,
      source: `synthetic:bn?strength=${strength}&parents=${maxParents}&cardinality=${cardinalities.join(",")}&base=${base}`,
      files: [],
      rowsRead: n,
      drops: [],
      preprocessing: [
        `generated ${n} records from a random Bayesian network over ${d} attributes (${edges} edges, at most ${maxParents} parents per node, noisy-copy strength ${strength}, ${base} base marginals)`,
      ],
      generator: { kind: "bn", n, d, cardinalities, maxParents, strength, base },
    },
    where,
  );
  return { ...dataset, network };
}
