import { parity32 } from "@calm-ldp/hadamard";
import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { boundedFromWord, popcount32, rejectionCount, WordBuffer } from "./words.js";

const refusingRng: Rng = {
  nextUint32: () => {
    throw new Error("rejected");
  },
  fill: (out) => out,
  nextFloat: () => 0,
};

describe("boundedFromWord (exact uniform integers from words)", () => {
  it("accepts exactly floor(2^32 / m) words per output (the multiply-high rule, counted)", () => {
    // Words u with output y are those with u m in [y 2^32 + reject, (y + 1) 2^32):
    // their number is ceil((y+1) 2^32 / m) - ceil((y 2^32 + reject) / m). Equal for all y = exact.
    for (const m of [2, 3, 5, 7, 63, 100, 1000, 65_537]) {
      const reject = rejectionCount(m);
      const expected = Math.floor(2 ** 32 / m);
      for (let y = 0; y < Math.min(m, 2000); y++) {
        const count = Math.ceil(((y + 1) * 2 ** 32) / m) - Math.ceil((y * 2 ** 32 + reject) / m);
        expect(count).toBe(expected);
      }
    }
  });

  it("implements that rule: returns floor(u m / 2^32) or draws again", () => {
    const rng = seededRng(1);
    for (const m of [3, 7, 100, 2 ** 21]) {
      const reject = rejectionCount(m);
      for (let i = 0; i < 20_000; i++) {
        // Words near the rejection region as well as random ones.
        const u =
          i % 2 === 0
            ? rng.nextUint32()
            : (Math.ceil((rng.nextUint32() % m) * (2 ** 32 / m)) + (i % 5)) % 2 ** 32;
        const low = (u * m) % 2 ** 32;
        if (low >= reject)
          expect(boundedFromWord(u, m, reject, refusingRng)).toBe(Math.floor((u * m) / 2 ** 32));
        else expect(() => boundedFromWord(u, m, reject, refusingRng)).toThrow("rejected");
      }
    }
  });

  it("uses modulo below the largest multiple for ranges above 2^21", () => {
    const m = 3 * 2 ** 22 + 1;
    const reject = rejectionCount(m);
    const limit = 2 ** 32 - reject;
    expect(boundedFromWord(limit - 1, m, reject, refusingRng)).toBe((limit - 1) % m);
    expect(() => boundedFromWord(limit, m, reject, refusingRng)).toThrow("rejected");
  });

  it("is uniform in a seeded chi-square test", () => {
    // 7 cells, 70,000 draws: chi-square with 6 degrees of freedom; 30 is beyond p = 4e-5.
    const rng = seededRng(9);
    const counts = new Float64Array(7);
    const reject = rejectionCount(7);
    for (let i = 0; i < 70_000; i++) counts[boundedFromWord(rng.nextUint32(), 7, reject, rng)]! += 1;
    const chi = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chi).toBeLessThan(30);
  });
});

describe("bit helpers", () => {
  it("parity and popcount agree with a bit loop", () => {
    const rng = seededRng(4);
    for (let i = 0; i < 5000; i++) {
      const x = rng.nextUint32();
      let bits = 0;
      for (let b = 0; b < 32; b++) bits += (x >>> b) & 1;
      expect(popcount32(x)).toBe(bits);
      expect(parity32(x)).toBe(bits & 1);
    }
  });

  it("WordBuffer draws short runs word by word and long runs in bulk, reusing memory", () => {
    const buffer = new WordBuffer();
    const a = seededRng(2);
    const b = seededRng(2);
    const short = Array.from(buffer.draw(a, 10));
    expect(short).toEqual(Array.from({ length: 10 }, () => b.nextUint32()));
    const long = buffer.draw(a, 1000);
    expect(Array.from(long)).toEqual(Array.from(b.fill(new Uint32Array(1000))));
    expect(buffer.draw(a, 5).buffer).toBe(long.buffer);
  });
});
