/**
 * Expected number of cells of an l-way view: the mean of prod_{i in S} c_i over
 * all l-subsets S of the attributes, i.e. e_l(c) / C(d, l) with e_l the
 * elementary symmetric polynomial (2^l for binary data). ../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views.
 * O(d l) by the usual recurrence e_j <- e_j + c_i e_{j-1}.
 */
export function expectedViewCells(cardinalities: readonly number[], l: number): number {
  const d = cardinalities.length;
  // Work with e_j / C(i, j) to keep magnitudes bounded: mean over j-subsets of the first i attributes.
  const mean = new Float64Array(l + 1);
  mean[0] = 1;
  for (let i = 1; i <= d; i++) {
    const c = cardinalities[i - 1]!;
    for (let j = Math.min(i, l); j >= 1; j--) {
      // mean_i[j] = ( C(i-1, j) mean_{i-1}[j] + c C(i-1, j-1) mean_{i-1}[j-1] ) / C(i, j)
      //           = ((i - j) / i) mean_{i-1}[j] + (j / i) c mean_{i-1}[j-1]
      const keep = j <= i - 1 ? ((i - j) / i) * mean[j]! : 0;
      mean[j] = keep + (j / i) * c * mean[j - 1]!;
    }
  }
  return mean[l]!;
}

/**
 * Variance factor of the adaptive frequency oracle for a domain of L cells at
 * budget eps: min(4e^eps/(e^eps-1)^2 [OUE], (L-2+e^eps)/(e^eps-1)^2 [GRR]).
 * ../../../docs/algorithms.md#frequency-oracles.
 */
export function adaptiveVarianceFactor(cells: number, eps: number): number {
  const e = Math.exp(eps);
  const denominator = (e - 1) ** 2;
  return Math.min((4 * e) / denominator, (cells - 2 + e) / denominator);
}

/**
 * CALM's noise error of one attribute, NE(n, d, eps, l) =
 * min(4e^eps/(e^eps-1)^2, (L-2+e^eps)/(e^eps-1)^2) * (L / l) * (d / n),
 * with L the expected cell count of an l-way view (CALM, Eq. 7; ../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views).
 * O(d l).
 */
export function noiseError(n: number, cardinalities: readonly number[], eps: number, l: number): number {
  const d = cardinalities.length;
  const cells = expectedViewCells(cardinalities, l);
  return adaptiveVarianceFactor(cells, eps) * (cells / l) * (d / n);
}

/** CALM's sampling error SE(n, m) = m / n (CALM, Eq. 8). O(1). */
export function samplingError(n: number, m: number): number {
  return m / n;
}
