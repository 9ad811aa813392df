import type { GroupSpec } from "./orbits.js";

/**
 * Base blocks of Steiner systems with a prescribed automorphism group, found by
 * `scripts/find-orbit-designs.ts` (exact cover over the t-subsets; its printout,
 * pasted). The blocks of a design are the orbits of its base blocks under the group
 * (see {@link developBlocks}); the tests check each is a Steiner system.
 * @internal
 */
export const ORBIT_DESIGNS: readonly {
  readonly v: number;
  readonly k: number;
  readonly t: number;
  readonly group: GroupSpec;
  readonly base: readonly (readonly number[])[];
}[] = [
  {
    v: 14,
    k: 4,
    t: 3,
    group: { kind: "affine", q: 7, a: 1, copies: 2 },
    base: [
      [0, 1, 2, 4],
      [0, 1, 5, 7],
      [0, 1, 11, 12],
      [0, 1, 8, 13],
      [0, 1, 9, 10],
      [0, 2, 7, 8],
      [0, 2, 11, 13],
      [0, 2, 10, 12],
      [0, 3, 10, 13],
      [0, 3, 7, 11],
      [0, 3, 8, 12],
      [0, 7, 9, 13],
      [7, 8, 9, 12],
    ],
  },
  {
    v: 22,
    k: 4,
    t: 3,
    group: { kind: "cyclic", n: 21 },
    base: [
      [0, 1, 3, 21],
      [0, 1, 4, 10],
      [0, 1, 15, 18],
      [0, 1, 2, 17],
      [0, 1, 7, 12],
      [0, 1, 5, 8],
      [0, 1, 6, 14],
      [0, 1, 13, 19],
      [0, 1, 9, 11],
      [0, 2, 8, 14],
      [0, 2, 6, 10],
      [0, 2, 5, 7],
      [0, 2, 4, 11],
      [0, 3, 8, 12],
      [0, 3, 10, 13],
      [0, 4, 12, 21],
      [0, 4, 9, 14],
      [0, 5, 11, 21],
      [0, 7, 14, 21],
    ],
  },
  {
    v: 25,
    k: 4,
    t: 2,
    group: { kind: "translations", p: 5, m: 2 },
    base: [
      [0, 1, 5, 12],
      [0, 2, 8, 17],
    ],
  },
  {
    v: 26,
    k: 4,
    t: 3,
    group: { kind: "cyclic", n: 25 },
    base: [
      [0, 1, 2, 4],
      [0, 1, 19, 22],
      [0, 1, 5, 9],
      [0, 1, 6, 21],
      [0, 1, 7, 20],
      [0, 1, 8, 13],
      [0, 1, 17, 23],
      [0, 1, 18, 25],
      [0, 1, 10, 16],
      [0, 1, 11, 12],
      [0, 2, 8, 12],
      [0, 2, 21, 25],
      [0, 2, 11, 15],
      [0, 2, 6, 13],
      [0, 2, 5, 7],
      [0, 2, 10, 18],
      [0, 2, 9, 16],
      [0, 2, 14, 17],
      [0, 3, 9, 21],
      [0, 3, 16, 20],
      [0, 3, 10, 14],
      [0, 3, 15, 25],
      [0, 3, 8, 18],
      [0, 3, 12, 17],
      [0, 5, 11, 19],
      [0, 5, 14, 25],
    ],
  },
  {
    v: 37,
    k: 4,
    t: 2,
    group: { kind: "cyclic", n: 37 },
    base: [
      [0, 1, 3, 24],
      [0, 4, 9, 15],
      [0, 7, 17, 25],
    ],
  },
  {
    v: 41,
    k: 5,
    t: 2,
    group: { kind: "cyclic", n: 41 },
    base: [
      [0, 1, 4, 11, 29],
      [0, 2, 8, 17, 22],
    ],
  },
  {
    v: 49,
    k: 4,
    t: 2,
    group: { kind: "translations", p: 7, m: 2 },
    base: [
      [0, 1, 7, 16],
      [0, 2, 10, 39],
      [0, 3, 21, 33],
      [0, 11, 22, 36],
    ],
  },
  {
    v: 52,
    k: 4,
    t: 2,
    group: { kind: "cyclic", n: 51 },
    base: [
      [0, 1, 3, 8],
      [0, 4, 18, 30],
      [0, 6, 19, 29],
      [0, 9, 20, 36],
      [0, 17, 34, 51],
    ],
  },
  {
    v: 61,
    k: 4,
    t: 2,
    group: { kind: "cyclic", n: 61 },
    base: [
      [0, 1, 3, 7],
      [0, 5, 17, 38],
      [0, 8, 19, 37],
      [0, 9, 22, 36],
      [0, 10, 26, 41],
    ],
  },
  {
    v: 61,
    k: 5,
    t: 2,
    group: { kind: "cyclic", n: 61 },
    base: [
      [0, 1, 3, 13, 34],
      [0, 4, 9, 23, 45],
      [0, 6, 17, 24, 32],
    ],
  },
];
