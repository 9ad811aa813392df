import { checkAttributes } from "./check.js";
import { fail } from "./errors.js";

function checkD(where: string, d: number): void {
  if (!Number.isInteger(d) || d < 0 || d > 32) fail(where, "d must be an integer in [0, 32]", d);
}

/**
 * The cell-index mask of an attribute set over `d` binary attributes, in the table
 * order every package uses (mixed radix, first attribute most significant):
 * attribute `a` is bit `d - 1 - a`. With this convention the FWHT of a full table
 * (see {@link fwht}) holds `theta_alpha` at index `attributesToMask(alpha, d)`.
 * Unsigned 32-bit result; d <= 32. O(|attributes|).
 */
export function attributesToMask(attributes: ArrayLike<number>, d: number): number {
  checkD("attributesToMask", d);
  checkAttributes("attributesToMask", "attributes", attributes, d);
  let mask = 0;
  for (let i = 0; i < attributes.length; i++) mask |= 1 << (d - 1 - attributes[i]!);
  return mask >>> 0;
}

/** The inverse of {@link attributesToMask}: ascending attribute indices of `mask`. O(d). */
export function maskToAttributes(mask: number, d: number): number[] {
  checkD("maskToAttributes", d);
  if (!Number.isInteger(mask) || mask < 0 || mask >= 2 ** d)
    fail("maskToAttributes", `mask must be an integer in [0, 2^${d})`, mask);
  const attributes: number[] = [];
  for (let a = 0; a < d; a++) if ((mask >>> (d - 1 - a)) & 1) attributes.push(a);
  return attributes;
}
