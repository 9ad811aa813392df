import { fail } from "./errors.js";
import type { RawAttribute } from "./finish-dataset.js";

/** @internal One value for all d attributes, or exactly d values. */
export function perAttribute(
  where: string,
  name: string,
  value: number | readonly number[],
  d: number,
): number[] {
  if (typeof value === "number") return Array.from({ length: d }, () => value);
  if (value.length !== d)
    fail(where, `${name} must be one number or ${d} numbers (one per attribute)`, value.length);
  return [...value];
}

/** @internal Synthetic attribute i with c categories: `x${i}`, labels "0".."c-1". */
export function syntheticAttribute(i: number, c: number): RawAttribute {
  return {
    name: `x${i}`,
    labels: Array.from({ length: c }, (_, v) => String(v)),
    kind: c === 2 ? "binary" : "nominal",
    fixedDomain: true,
  };
}
