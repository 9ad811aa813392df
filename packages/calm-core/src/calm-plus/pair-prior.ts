/** calm-plus's pair prior: the predicted marginal of a pair of attributes no view holds. */
import { createTable, type MarginalTable } from "@calm-ldp/marginal-algebra";
import { interactionTransform } from "../interaction-basis.js";
import type { Pooled } from "./pooled.js";

/**
 * The empirical-Bayes prediction of the marginal of a pair (a, b) no view holds:
 * coefficients 1/sqrt(c_a c_b) (total 1), the shrunk one-way beta_{a,j}/sqrt(c_b)
 * and beta_{b,j}/sqrt(c_a), and beta_{a,j} beta_{b,j'} + mu_2 for the pair
 * (independence plus the measured pairs' mean residual); negative cells set to 0
 * and the table renormalised. O(c_a c_b (c_a + c_b)).
 */
export function priorPair(
  a: number,
  b: number,
  ca: number,
  cb: number,
  pooled: Map<string, Pooled>,
  center: number,
): MarginalTable {
  const one = (attribute: number, j: number) => pooled.get(`${attribute}:${j},`)?.value ?? 0;
  const coefficients = new Float64Array(ca * cb);
  for (let ja = 0; ja < ca; ja++)
    for (let jb = 0; jb < cb; jb++) {
      let value: number;
      if (ja === 0 && jb === 0) value = 1 / Math.sqrt(ca * cb);
      else if (jb === 0) value = one(a, ja) / Math.sqrt(cb);
      else if (ja === 0) value = one(b, jb) / Math.sqrt(ca);
      else value = one(a, ja) * one(b, jb) + center;
      coefficients[ja * cb + jb] = value;
    }
  interactionTransform(coefficients, [ca, cb], true);
  let total = 0;
  for (let u = 0; u < coefficients.length; u++) {
    if (coefficients[u]! < 0) coefficients[u] = 0;
    total += coefficients[u]!;
  }
  for (let u = 0; u < coefficients.length; u++) coefficients[u]! /= total;
  return createTable([a, b], [ca, cb], { cells: coefficients, unit: "fraction" });
}
