import { describe, expect, it } from "vitest";
import { binomial } from "../binomial.js";
import { choose, isSteinerSystem } from "../test-support.js";
import { countUncovered } from "../verify.js";
import { knownDesigns } from "./catalog.js";
import { addPoint, groupConstruction, groupConstructionSize, restrictBlocks } from "./derived.js";
import { galoisField, primePower } from "./galois-field.js";
import { wittDesign } from "./golay.js";
import { inversivePlane } from "./inversive.js";
import { ORBIT_DESIGNS } from "./orbit-designs-data.js";
import { blockOrbit, developBlocks, generators } from "./orbits.js";
import { affinePlane, hermitianUnital, projectivePlane } from "./planes.js";
import { booleanQuadrupleSystem, doubleQuadrupleSystem } from "./quadruple.js";
import { steinerTripleSystem } from "./steiner-triple.js";
import { affineFlats, projectiveSubspaces } from "./subspaces.js";
import { allSubsets, complementBlocks, partitionBlocks } from "./trivial.js";

describe("galoisField", () => {
  it("satisfies the field axioms for every prime power q <= 49 (exhaustively)", () => {
    for (const q of [2, 3, 4, 5, 7, 8, 9, 16, 25, 27, 49]) {
      const f = galoisField(q);
      expect([f.p ** f.m, f.q]).toEqual([q, q]);
      for (let a = 0; a < q; a++) {
        expect(f.add(a, 0)).toBe(a);
        expect(f.mul(a, 1)).toBe(a);
        expect(f.add(a, f.neg(a))).toBe(0);
        if (a !== 0) expect(f.mul(a, f.inv(a))).toBe(1);
        for (let b = 0; b < q; b++) {
          expect(f.add(a, b)).toBe(f.add(b, a));
          expect(f.mul(a, b)).toBe(f.mul(b, a));
          if (a !== 0 && b !== 0) expect(f.mul(a, b)).not.toBe(0); // no zero divisors
        }
      }
      // associativity and distributivity on a sample of triples
      for (let i = 0; i < 300; i++) {
        const [a, b, c] = [(i * 7) % q, (i * 13 + 1) % q, (i * 29 + 2) % q];
        expect(f.mul(f.mul(a, b), c)).toBe(f.mul(a, f.mul(b, c)));
        expect(f.add(f.add(a, b), c)).toBe(f.add(a, f.add(b, c)));
        expect(f.mul(a, f.add(b, c))).toBe(f.add(f.mul(a, b), f.mul(a, c)));
      }
    }
  });
  it("knows prime powers", () => {
    expect(primePower(64)).toEqual([2, 6]);
    expect(primePower(49)).toEqual([7, 2]);
    expect(primePower(6)).toBeUndefined();
    expect(primePower(1)).toBeUndefined();
    expect(() => galoisField(6)).toThrow(/prime power/);
  });
});

describe("Steiner systems (every t-subset in exactly one block)", () => {
  it("STS(v) for every v ≡ 1, 3 (mod 6) up to 45, and none otherwise", () => {
    for (let v = 3; v <= 45; v++) {
      const blocks = steinerTripleSystem(v);
      if (v % 6 === 1 || v % 6 === 3) {
        expect(blocks, `STS(${v})`).toBeDefined();
        expect(blocks!.length).toBe((v * (v - 1)) / 6);
        expect(isSteinerSystem(blocks!, v, 3, 2), `STS(${v})`).toBe(true);
      } else {
        expect(steinerTripleSystem(v)).toBeUndefined();
      }
    }
  });

  it("projective planes PG(2, q) and affine planes AG(2, q) for q = 2, 3, 4, 5, 7, 8", () => {
    for (const q of [2, 3, 4, 5, 7, 8]) {
      expect(isSteinerSystem(projectivePlane(q)!, q * q + q + 1, q + 1, 2), `PG(2,${q})`).toBe(true);
      expect(isSteinerSystem(affinePlane(q)!, q * q, q, 2), `AG(2,${q})`).toBe(true);
    }
    expect(projectivePlane(6)).toBeUndefined();
    expect(affinePlane(10)).toBeUndefined();
  });

  it("the Hermitian unital S(2, 4, 28)", () => {
    const unital = hermitianUnital(3)!;
    expect(unital).toHaveLength(63);
    expect(isSteinerSystem(unital, 28, 4, 2)).toBe(true);
  });

  it("SQS(2^m) from AG(m, 2) and by doubling; inversive planes S(3, q+1, q^2+1)", () => {
    for (const v of [8, 16, 32]) {
      const sqs = booleanQuadrupleSystem(v)!;
      expect(sqs.length).toBe(choose(v, 3) / 4);
      expect(countUncovered(sqs, v, 3)).toBe(0); // a covering with exactly C(v,3)/4 blocks is Steiner
    }
    expect(isSteinerSystem(booleanQuadrupleSystem(16)!, 16, 4, 3)).toBe(true);
    expect(booleanQuadrupleSystem(12)).toBeUndefined();
    for (const q of [3, 4, 5]) {
      const plane = inversivePlane(q)!;
      expect(plane).toHaveLength(q * (q * q + 1));
      expect(isSteinerSystem(plane, q * q + 1, q + 1, 3), `inversive plane ${q}`).toBe(true);
    }
    const sqs20 = doubleQuadrupleSystem(inversivePlane(3)!, 10);
    expect(isSteinerSystem(sqs20, 20, 4, 3)).toBe(true);
  });

  it("subspaces of AG(m, q) and PG(m, q) cover (j+1)-subsets", () => {
    expect(isSteinerSystem(affineFlats(3, 3, 1), 27, 3, 2)).toBe(true);
    expect(isSteinerSystem(projectiveSubspaces(2, 3, 1), 15, 3, 2)).toBe(true);
    const flats = affineFlats(2, 4, 3); // 3-flats of AG(4, 2): C(16, 8, 4) = 30, the Schönheim bound
    expect(flats).toHaveLength(30);
    expect(countUncovered(flats, 16, 4)).toBe(0);
    const planes = projectiveSubspaces(2, 3, 2); // planes of PG(3, 2): C(15, 7, 3) = 15
    expect(planes).toHaveLength(15);
    expect(countUncovered(planes, 15, 3)).toBe(0);
    expect(countUncovered(projectiveSubspaces(2, 4, 2), 31, 3)).toBe(0);
  });
});

describe("catalog", () => {
  it("every catalog design has the advertised parameters and covers its t-subsets", () => {
    for (const design of knownDesigns()) {
      if (binomial(design.v, design.t) > 2 ** 20) continue;
      const blocks = design.blocks();
      expect(blocks.length, design.name).toBe(design.size);
      expect(
        blocks.every((b) => b.length === design.k),
        design.name,
      ).toBe(true);
      expect(countUncovered(blocks, design.v, design.t), design.name).toBe(0);
    }
  });
});

describe("elementary and derived constructions", () => {
  it("trivial designs cover", () => {
    expect(allSubsets(5, 2)).toHaveLength(10);
    expect(countUncovered(partitionBlocks(10, 3), 10, 1)).toBe(0);
    expect(partitionBlocks(10, 3)).toHaveLength(4);
    expect(countUncovered(complementBlocks(8, 3), 8, 3)).toBe(0);
    expect(complementBlocks(8, 3)).toHaveLength(4);
  });

  it("restriction, add-a-point and the group construction keep coverage", () => {
    const sts = steinerTripleSystem(15)!;
    expect(countUncovered(restrictBlocks(sts, 12, 2), 12, 2)).toBe(0);
    const base = steinerTripleSystem(13)!; // covers pairs of 0..12 by triples
    const apex = partitionBlocks(13, 2); // covers points of 0..12 by pairs
    expect(countUncovered(addPoint(base, apex, 14), 14, 2)).toBe(0);
    for (const [v, k, t] of [
      [20, 6, 3],
      [17, 8, 4],
      [9, 5, 2],
    ] as const) {
      const blocks = groupConstruction(v, k, t);
      expect(blocks).toHaveLength(groupConstructionSize(v, k, t));
      expect(blocks.every((b) => b.length === k)).toBe(true);
      expect(countUncovered(blocks, v, t)).toBe(0);
    }
  });
});

describe("Witt and orbit designs", () => {
  it("the Golay code gives S(5,8,24) and its derived designs S(4,7,23), S(3,6,22)", () => {
    const octads = wittDesign(24);
    expect(octads).toHaveLength(759);
    expect(countUncovered(octads, 24, 5)).toBe(0); // 759 C(8,5) = C(24,5): every 5-set exactly once
    expect(isSteinerSystem(wittDesign(23), 23, 7, 4)).toBe(true);
    expect(isSteinerSystem(wittDesign(22), 22, 6, 3)).toBe(true);
  });

  it("every orbit design develops into a Steiner system", () => {
    for (const design of ORBIT_DESIGNS) {
      const blocks = developBlocks(design.base, design.group, design.v);
      const label = `S(${design.t},${design.k},${design.v})`;
      expect(blocks.length * choose(design.k, design.t), label).toBe(choose(design.v, design.t));
      expect(countUncovered(blocks, design.v, design.t), label).toBe(0);
    }
  });

  it("groups act as permutations", () => {
    for (const group of [
      { kind: "cyclic", n: 21 },
      { kind: "translations", p: 5, m: 2 },
      { kind: "affine", q: 7, a: 2, copies: 2 },
      { kind: "psl2", q: 13 },
    ] as const) {
      for (const g of generators(group, 25)) expect(new Set(g).size).toBe(25);
    }
    expect(blockOrbit([0, 1, 3], generators({ kind: "cyclic", n: 7 }, 7))).toHaveLength(7);
  });
});
