/**
 * Maximum-likelihood weights of a mixture whose components are fixed (a grid
 * of scales, of shapes, ...), by EM from uniform weights:
 *   w_g <- (1/n) sum_i w_g L_ig / sum_h w_h L_ih,
 * `iterations` sweeps. `likelihood[i * components + g]` is L_ig, the likelihood
 * of observation i under component g (a factor common to one i cancels). An
 * observation whose likelihood is 0 under every component is left out of that
 * sweep's sum. Cost O(iterations x n x components).
 */
export function mixtureWeights(
  likelihood: Float64Array,
  n: number,
  components: number,
  iterations: number,
): Float64Array {
  let weights = new Float64Array(components).fill(1 / components);
  const posterior = new Float64Array(components);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const next = new Float64Array(components);
    for (let i = 0; i < n; i++) {
      let total = 0;
      for (let g = 0; g < components; g++) {
        posterior[g] = weights[g]! * likelihood[i * components + g]!;
        total += posterior[g]!;
      }
      if (total > 0) for (let g = 0; g < components; g++) next[g]! += posterior[g]! / total;
    }
    for (let g = 0; g < components; g++) next[g]! /= n;
    weights = next;
  }
  return weights;
}
