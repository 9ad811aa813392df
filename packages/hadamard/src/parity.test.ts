import { popcount32, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { fwht } from "./fwht.js";
import { parity32 } from "./parity.js";

describe("parity32", () => {
  it("is the parity of the popcount, including the top bit", () => {
    const rng = seededRng(32);
    const edges = [0, 1, 3, 7, 0x80000000, 0xffffffff, 0x80000001];
    for (const x of [...edges, ...Array.from({ length: 1000 }, () => rng.nextUint32())]) {
      expect(parity32(x), `x = 0x${x.toString(16)}`).toBe(popcount32(x) & 1);
    }
    expect(edges.map(parity32)).toEqual([0, 1, 0, 1, 1, 0, 0]);
  });

  it("gives the signs of the Hadamard matrix the FWHT applies", () => {
    const d = 16;
    for (let a = 0; a < d; a++) {
      const unit = new Float64Array(d);
      unit[a] = 1;
      const column = fwht(unit);
      for (let j = 0; j < d; j++) expect(column[j]).toBe(parity32(a & j) === 0 ? 1 : -1);
    }
  });
});
