import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { MutualInformationOptions } from "./api.js";
import { fail } from "./errors.js";

/**
 * Mutual information of the two attributes of a 2-way marginal (Cormode et al.
 * §6.2): `I(A; B) = sum_ij p_ij log(p_ij / (p_i. p_.j))`, with `p` the table's
 * cells clipped at 0 and normalised to total 1 (a private estimate may have
 * negative cells; cells with p_ij = 0 contribute 0). Natural logarithm (nats) by
 * default, bits with `base: 2`. Always >= 0 (up to rounding). O(|V_A|).
 */
export function mutualInformation(table: MarginalTable, options: MutualInformationOptions = {}): number {
  const where = "mutualInformation";
  if (table?.attributes?.length !== 2) fail(where, "table must be a 2-way marginal", table?.attributes);
  const base = options.base ?? "e";
  if (base !== "e" && base !== 2) fail(where, 'base must be "e" or 2', base);
  const [rows, cols] = table.cardinalities as [number, number];
  if (table.cells.length !== rows * cols)
    fail(where, `table must have ${rows * cols} cells`, table.cells.length);
  let total = 0;
  for (const x of table.cells) {
    if (Number.isNaN(x)) fail(where, "cells must be numbers", x);
    if (x > 0) total += x;
  }
  if (!(total > 0 && Number.isFinite(total))) fail(where, "table must have positive finite mass", total);
  const rowMass = new Float64Array(rows);
  const colMass = new Float64Array(cols);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      const p = Math.max(0, table.cells[i * cols + j]!) / total;
      rowMass[i] += p;
      colMass[j] += p;
    }
  let mi = 0;
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      const p = Math.max(0, table.cells[i * cols + j]!) / total;
      if (p > 0) mi += p * Math.log(p / (rowMass[i]! * colMass[j]!));
    }
  mi = Math.max(0, mi);
  return base === 2 ? mi / Math.LN2 : mi;
}
