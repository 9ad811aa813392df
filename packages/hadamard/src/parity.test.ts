import { describe, expect, it } from "vitest";
import { fwht } from "./fwht.js";
import { parity32 } from "./parity.js";

describe("parity32", () => {
  it("is the parity of the popcount, including the top bit", () => {
    for (const [x, p] of [
      [0, 0],
      [1, 1],
      [3, 0],
      [7, 1],
      [0x80000000, 1],
      [0xffffffff, 0],
      [0x80000001, 0],
    ] as const) {
      expect(parity32(x)).toBe(p);
    }
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
