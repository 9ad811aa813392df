import { describe, expect, it } from "vitest";
import { deriveSeed, repetitionSeed } from "./seed.js";
import { seededRng, xoshiro128FromState } from "./seeded.js";

describe("seededRng (xoshiro128**)", () => {
  it("matches the reference implementation from state {1, 2, 3, 4}", () => {
    // First outputs of the reference C code (prng.di.unimi.it/xoshiro128starstar.c) from s = {1, 2, 3, 4}.
    const rng = xoshiro128FromState(Uint32Array.of(1, 2, 3, 4));
    expect([rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32()]).toEqual([
      11520, 0, 5927040, 70819200,
    ]);
  });

  it("fill produces the same words as nextUint32", () => {
    const a = seededRng(42);
    const b = seededRng(42);
    const bulk = a.fill(new Uint32Array(1000));
    for (let i = 0; i < 1000; i++) expect(bulk[i]).toBe(b.nextUint32());
    expect(a.nextUint32()).toBe(b.nextUint32());
  });

  it("is reproducible per (seed, stream) and differs across seeds and streams", () => {
    const draw = (seed: number, stream = 0) => Array.from(seededRng(seed, stream).fill(new Uint32Array(8)));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    expect(draw(7, 1)).not.toEqual(draw(7, 0));
    expect(Array.from(seededRng(7).fork(3).fill(new Uint32Array(8)))).toEqual(draw(7, 3));
    expect(draw(2 ** 40)).not.toEqual(draw(0));
  });

  it("clone continues identically and independently; jump moves to another subsequence", () => {
    const rng = seededRng(5);
    rng.nextUint32();
    const copy = rng.clone();
    expect(copy.nextUint32()).toBe(rng.nextUint32());
    const jumped = rng.clone();
    jumped.jump();
    expect(jumped.nextUint32()).not.toBe(rng.nextUint32());
  });

  it("rejects bad seeds and streams with a named error", () => {
    expect(() => seededRng(-1)).toThrow(/seededRng: seed must be a safe integer >= 0 \(got -1\)/);
    expect(() => seededRng(1.5)).toThrow(/seed/);
    expect(() => seededRng(1, -2)).toThrow(/stream/);
  });

  it("words are uniform over 256 byte buckets (chi-square, z < 5)", () => {
    const rng = seededRng(2024);
    const words = rng.fill(new Uint32Array(1 << 20));
    const bins = new Float64Array(256);
    for (const w of words) bins[w >>> 24]!++;
    const expected = words.length / 256;
    let chi = 0;
    for (const c of bins) chi += (c - expected) ** 2 / expected;
    // chi-square with 255 df: mean 255, sd sqrt(510); |z| < 5 fails a broken generator, not a good one.
    expect(Math.abs((chi - 255) / Math.sqrt(510))).toBeLessThan(5);
  });

  it("nextFloat lies in [0, 1) with mean 1/2 and variance 1/12 (z < 5)", () => {
    const rng = seededRng(9);
    const n = 200_000;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < n; i++) {
      const x = rng.nextFloat();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
      sumSq += x * x;
    }
    const mean = sum / n;
    expect(Math.abs(mean - 0.5) / Math.sqrt(1 / 12 / n)).toBeLessThan(5);
    // E[x^2] = 1/3, Var[x^2] = 1/5 - 1/9 = 4/45.
    expect(Math.abs(sumSq / n - 1 / 3) / Math.sqrt(4 / 45 / n)).toBeLessThan(5);
  });
});

describe("deriveSeed", () => {
  it("is deterministic, depends on every path element, and stays a 32-bit integer", () => {
    expect(deriveSeed(1, 2, 3)).toBe(deriveSeed(1, 2, 3));
    const seen = new Set<number>();
    for (let rep = 0; rep < 100; rep++)
      for (let worker = 0; worker < 10; worker++) seen.add(deriveSeed(123, rep, worker));
    expect(seen.size).toBe(1000);
    expect(deriveSeed(1, 2, 3)).not.toBe(deriveSeed(1, 3, 2));
    const s = deriveSeed(2 ** 45, 7);
    expect(Number.isInteger(s) && s >= 0 && s < 2 ** 32).toBe(true);
  });
});

describe("repetitionSeed", () => {
  it("deriveSeed(seed, rep) collides when seed ^ rep agree; repetitionSeed does not (40 seeds x 40 reps distinct)", () => {
    // The defect it exists for: the first path index is XORed into the seed's low word.
    expect(deriveSeed(1, 2)).toBe(deriveSeed(3, 0));
    expect(deriveSeed(1, 2, 7)).toBe(deriveSeed(3, 0, 7));
    const seen = new Set<number>();
    for (let seed = 0; seed < 40; seed++)
      for (let rep = 0; rep < 40; rep++) seen.add(repetitionSeed(seed, rep));
    expect(seen.size).toBe(1600);
    expect(repetitionSeed(1, 2)).not.toBe(repetitionSeed(3, 0));
    expect(repetitionSeed(5, 6)).toBe(repetitionSeed(5, 6));
  });
});
