import { wittDesign } from "./golay.js";
import { inversivePlane } from "./inversive.js";
import { ORBIT_DESIGNS } from "./orbit-designs-data.js";
import { developBlocks } from "./orbits.js";
import { hermitianUnital } from "./planes.js";
import { doubleQuadrupleSystem } from "./quadruple.js";
import { steinerTripleSystem } from "./steiner-triple.js";
import { affineFlats, projectiveSubspaces } from "./subspaces.js";

/**
 * A design from a direct construction, on points 0..v-1 with blocks of k points,
 * covering every t-subset (most are Steiner systems: every t-subset exactly once).
 * @internal
 */
export interface KnownDesign {
  readonly v: number;
  readonly k: number;
  readonly t: number;
  /** Human-readable name of the construction. */
  readonly name: string;
  /** Number of blocks. */
  readonly size: number;
  /** The blocks (built once, then cached; do not mutate). */
  blocks(): readonly (readonly number[])[];
}

/** Largest point count of the catalog (the search handles v <= 64). */
export const CATALOG_MAX_V = 64;

function entry(v: number, k: number, t: number, name: string, build: () => number[][]): KnownDesign {
  let cache: number[][] | undefined;
  const blocks = () => {
    cache ??= build().map((block) => block.slice().sort((a, b) => a - b));
    return cache;
  };
  return {
    v,
    k,
    t,
    name,
    get size() {
      return blocks().length;
    },
    blocks,
  };
}

let catalog: KnownDesign[] | undefined;

/**
 * Every design the package can construct directly on at most 64 points:
 * - Steiner triple systems STS(v), v ≡ 1, 3 (mod 6) (Bose, Skolem);
 * - the j-flats of AG(m, q) (covering (j+1)-subsets; lines give S(2, q, q^m), planes
 *   of AG(m, 2) give SQS(2^m));
 * - the j-subspaces of PG(m, q) (covering (j+1)-subsets; lines give projective planes
 *   and S(2, q+1, (q^{m+1}-1)/(q-1)));
 * - the Hermitian unital S(2, 4, 28);
 * - the inversive planes S(3, q+1, q^2+1) for q = 3, 4, 5, 7;
 * - the Witt designs S(5, 8, 24), S(4, 7, 23), S(3, 6, 22) (extended Golay code);
 * - Steiner systems with a cyclic or translation automorphism group whose base
 *   blocks were found by exact cover (scripts/find-orbit-designs.ts): SQS(14),
 *   SQS(22), SQS(26), S(2,4,25), S(2,4,37), S(2,5,41), S(2,4,49), S(2,4,52),
 *   S(2,4,61), S(2,5,61);
 * - SQS(2v) from SQS(v) by doubling, for the SQS above (SQS(20), SQS(28), SQS(40),
 *   SQS(44), SQS(52), SQS(56)).
 * Designs are built lazily. O(1) to list; building costs at most ~100 ms (the
 * inversive plane of order 7).
 * @internal
 */
export function knownDesigns(): readonly KnownDesign[] {
  if (catalog) return catalog;
  const list: KnownDesign[] = [];
  for (let v = 7; v <= CATALOG_MAX_V; v++) {
    if (v % 6 === 1 || v % 6 === 3)
      list.push(entry(v, 3, 2, `Steiner triple system STS(${v})`, () => steinerTripleSystem(v)!));
  }
  const fields = [2, 3, 4, 5, 7, 8];
  for (const q of fields) {
    for (let m = 2; q ** m <= CATALOG_MAX_V; m++) {
      for (let j = 1; j < m; j++) {
        const name = j === 1 ? `lines of AG(${m},${q})` : `${j}-flats of AG(${m},${q})`;
        list.push(entry(q ** m, q ** j, j + 1, name, () => affineFlats(q, m, j)));
      }
    }
    for (let m = 2; (q ** (m + 1) - 1) / (q - 1) <= CATALOG_MAX_V; m++) {
      for (let j = 1; j < m; j++) {
        const name = j === 1 ? `lines of PG(${m},${q})` : `${j}-spaces of PG(${m},${q})`;
        list.push(
          entry((q ** (m + 1) - 1) / (q - 1), (q ** (j + 1) - 1) / (q - 1), j + 1, name, () =>
            projectiveSubspaces(q, m, j),
          ),
        );
      }
    }
  }
  list.push(entry(28, 4, 2, "Hermitian unital in PG(2,9)", () => hermitianUnital(3)!));
  for (const q of [3, 4, 5, 7]) {
    list.push(entry(q * q + 1, q + 1, 3, `inversive plane of order ${q}`, () => inversivePlane(q)!));
  }
  for (const v of [24, 23, 22] as const) {
    const name =
      v === 24
        ? "Witt design S(5,8,24) (Golay code octads)"
        : `Witt design S(${v - 19},${v - 16},${v}) (derived)`;
    list.push(entry(v, v - 16, v - 19, name, () => wittDesign(v)));
  }
  for (const design of ORBIT_DESIGNS) {
    const { v, k, t, group } = design;
    const groupName =
      group.kind === "translations"
        ? `Z_${group.p}^${group.m}`
        : group.kind === "affine"
          ? `Z_${group.q}${group.a === 1 ? "" : `:${group.a}`}${(group.copies ?? 1) > 1 ? ` (${group.copies} point orbits)` : ""}`
          : group.kind === "cyclic"
            ? `Z_${group.n}`
            : `PSL(2,${group.q})`;
    list.push(
      entry(v, k, t, `S(${t},${k},${v}) with automorphism group ${groupName}`, () =>
        developBlocks(design.base, group, v),
      ),
    );
  }
  // Doubling of every SQS(v) in the list whose double is not there yet.
  for (let grown = true; grown; ) {
    grown = false;
    for (const design of list.slice()) {
      const v2 = 2 * design.v;
      const isSqs = design.k === 4 && design.t === 3;
      if (!isSqs || v2 > CATALOG_MAX_V || list.some((d) => d.v === v2 && d.k === 4 && d.t === 3)) continue;
      list.push(
        entry(v2, 4, 3, `doubled ${design.name}`, () => doubleQuadrupleSystem(design.blocks(), design.v)),
      );
      grown = true;
    }
  }
  catalog = list;
  return list;
}
