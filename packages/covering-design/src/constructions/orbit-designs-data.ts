import designs from "./orbit-designs.json";
import type { GroupSpec } from "./orbits.js";

/** A Steiner system S(t, k, v) given by the base blocks of its orbits under `group`. */
export interface OrbitDesign {
  readonly v: number;
  readonly k: number;
  readonly t: number;
  readonly group: GroupSpec;
  readonly base: readonly (readonly number[])[];
}

/**
 * Base blocks of Steiner systems with a prescribed automorphism group, found by
 * `scripts/find-orbit-designs.ts` (exact cover over the t-subsets): its printout is
 * orbit-designs.json, one design a line, kept as data. The blocks of a design are
 * the orbits of its base blocks under the group (see {@link developBlocks}); the
 * tests check each is a Steiner system. @internal
 */
export const ORBIT_DESIGNS: readonly OrbitDesign[] = designs as readonly OrbitDesign[];
