import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { ChiSquareOptions, ChiSquareTest } from "./api.js";
import { chiSquareQuantile, chiSquareSurvival } from "./chi-square-distribution.js";
import { fail } from "./errors.js";
import { significanceLevel, userCount } from "./hypothesis-inputs.js";

/**
 * Pearson's chi-square test of independence on a 2-way marginal (Cormode et al.
 * §6.1): with cell fractions `p_ij` (the table normalised to total 1; a private
 * estimate may have negative cells, which are used as they are) and margins
 * `p_i.`, `p_.j`, the statistic is `n * sum_ij (p_ij - p_i. p_.j)^2 / (p_i. p_.j)`
 * over the rows and columns whose margin is positive (the others carry no
 * expected count and are left out, lowering the degrees of freedom
 * `(r' - 1)(c' - 1)`). Independence is rejected when the statistic exceeds the
 * `1 - alpha` quantile of chi-square(dof) (3.841 for a 2 x 2 table at 95%), with
 * no correction for the noise of a private table (as in the paper; Gaboardi et
 * al. discuss corrections). `n` is the number of users the table describes.
 * O(|V_A|) plus the quantile's O(60) CDF evaluations.
 */
export function chiSquareIndependence(
  table: MarginalTable,
  n: number,
  options: ChiSquareOptions = {},
): ChiSquareTest {
  const where = "chiSquareIndependence";
  if (table?.attributes?.length !== 2) fail(where, "table must be a 2-way marginal", table?.attributes);
  userCount(where, n);
  const alpha = significanceLevel(where, options.alpha);
  const [rows, cols] = table.cardinalities as [number, number];
  if (table.cells.length !== rows * cols)
    fail(where, `table must have ${rows * cols} cells`, table.cells.length);
  let total = 0;
  for (const x of table.cells) total += x;
  if (!(Number.isFinite(total) && total > 0)) fail(where, "table must have a positive finite total", total);
  const rowMass = new Float64Array(rows);
  const colMass = new Float64Array(cols);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      const p = table.cells[i * cols + j]! / total;
      rowMass[i] += p;
      colMass[j] += p;
    }
  let statistic = 0;
  let liveRows = 0;
  let liveCols = 0;
  for (let j = 0; j < cols; j++) if (colMass[j]! > 0) liveCols++;
  for (let i = 0; i < rows; i++) {
    if (!(rowMass[i]! > 0)) continue;
    liveRows++;
    for (let j = 0; j < cols; j++) {
      if (!(colMass[j]! > 0)) continue;
      const expected = rowMass[i]! * colMass[j]!;
      const diff = table.cells[i * cols + j]! / total - expected;
      statistic += (diff * diff) / expected;
    }
  }
  statistic *= n;
  const dof = (liveRows - 1) * (liveCols - 1);
  if (dof < 1) {
    // One live row or column: the table carries no evidence of dependence.
    return { statistic: 0, dof: 0, critical: Number.POSITIVE_INFINITY, pValue: 1, reject: false };
  }
  const critical = chiSquareQuantile(1 - alpha, dof);
  return {
    statistic,
    dof,
    critical,
    pValue: chiSquareSurvival(statistic, dof),
    reject: statistic > critical,
  };
}
