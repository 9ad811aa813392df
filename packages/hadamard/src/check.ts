import { fail } from "./errors.js";

/** @internal `attributes` must be strictly ascending integers in [0, d); returns its length. */
export function checkAttributes(
  where: string,
  name: string,
  attributes: ArrayLike<number>,
  d: number,
): number {
  let previous = -1;
  for (let i = 0; i < attributes.length; i++) {
    const a = attributes[i]!;
    if (!Number.isInteger(a) || a <= previous || a >= d) {
      fail(where, `${name} must be strictly ascending integers in [0, d = ${d})`, Array.from(attributes));
    }
    previous = a;
  }
  return attributes.length;
}

/** @internal log2 of a power-of-two length, or a failure naming `where`. */
export function log2Length(where: string, name: string, length: number, max = 30): number {
  if (length === 0 || (length & (length - 1)) !== 0 || length > 2 ** max) {
    fail(where, `${name}.length must be a power of two in [1, 2^${max}]`, length);
  }
  return 31 - Math.clz32(length);
}
