import { helmertBasis } from "./interaction-basis.js";

/**
 * In place, the tensor transform of `values` by the element-wise SQUARED Helmert
 * bases (same layout as `interactionTransform`, forward): out_u = sum_i h_{u,i}^2 values_i
 * with h_u the tensor basis row of coefficient u. Turns a per-cell variance weight
 * into the variance of every orthonormal coefficient when the cells' noise is
 * diagonal in the weights. O(D sum_i c_i). @internal
 */
export function squaredInteractionTransform(values: Float64Array, cardinalities: readonly number[]): void {
  const size = values.length;
  let inner = size;
  let scratch = new Float64Array(0);
  for (const c of cardinalities) {
    inner /= c;
    if (c === 1) continue;
    const basis = helmertBasis(c);
    if (scratch.length < c) scratch = new Float64Array(c);
    const block = inner * c;
    for (let start = 0; start < size; start += block)
      for (let offset = 0; offset < inner; offset++) {
        const base = start + offset;
        for (let x = 0; x < c; x++) scratch[x] = values[base + x * inner]!;
        for (let j = 0; j < c; j++) {
          let sum = 0;
          for (let x = 0; x < c; x++) sum += basis[j * c + x]! * basis[j * c + x]! * scratch[x]!;
          values[base + j * inner] = sum;
        }
      }
  }
}

/**
 * Variance of every orthonormal interaction coefficient gamma_u (u >= 1) of one
 * view's unbiased estimate, at the cell fractions `f` (non-negative, total 1; in
 * practice a first-pass fit of the view), from `reports` reports of a support
 * oracle with probabilities p, q. With g = p - q and N = reports:
 * - GRR (one value per report: multinomial counts, cells negatively correlated):
 *   Var(gamma_u) = sum_i h_{u,i}^2 (q + g (1 - g) f_i) / (N g^2)
 *   (the diagonal f p(1-p) + (1-f) q(1-q) plus the cross terms
 *   -(q^2 + q g (f_i + f_j)) summed against h_u with sum_i h_{u,i} = 0);
 * - unary oracles (OUE, SUE; OLH approximately): independent cells,
 *   Var(gamma_u) = sum_i h_{u,i}^2 (f_i p(1-p) + (1 - f_i) q(1-q)) / (N g^2);
 * plus the sampling of N users from the population: (sum_i h_{u,i}^2 f_i - gamma_u^2) / N,
 * with gamma_u the coefficient of f. At uniform f the GRR value is
 * (1 - g^2) / (D N g^2), the data-independent figure. O(D sum_i c_i).
 * @internal
 */
export function coefficientVariances(
  oracle: string,
  p: number,
  q: number,
  reports: number,
  f: Float64Array,
  cardinalities: readonly number[],
  coefficientsOfF: Float64Array,
): Float64Array {
  const g = p - q;
  const weights = new Float64Array(f.length);
  const sampling = Float64Array.from(f);
  for (let i = 0; i < f.length; i++)
    weights[i] = oracle === "grr" ? q + g * (1 - g) * f[i]! : f[i]! * p * (1 - p) + (1 - f[i]!) * q * (1 - q);
  squaredInteractionTransform(weights, cardinalities);
  squaredInteractionTransform(sampling, cardinalities);
  const out = new Float64Array(f.length);
  const denominator = reports * g * g;
  for (let u = 1; u < f.length; u++) {
    const gamma = coefficientsOfF[u]!;
    out[u] = weights[u]! / denominator + Math.max(0, sampling[u]! - gamma * gamma) / reports;
  }
  return out;
}
