import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { bucketStart, fmix32, hashKey, localHash } from "./hash.js";

describe("the local-hashing family", () => {
  it("fmix32 is MurmurHash3's finaliser (reference values)", () => {
    // Computed independently with 64-bit arithmetic in Python:
    // def fmix(h): h ^= h >> 16; h = h*0x85ebca6b & M; h ^= h >> 13; h = h*0xc2b2ae35 & M; return h ^ (h >> 16)
    expect(fmix32(0)).toBe(0);
    expect(fmix32(1)).toBe(0x514e28b7);
    expect(fmix32(0xffffffff)).toBe(0x81f16f39);
    expect(fmix32(0x12345678)).toBe(0xe37cd1bc);
  });

  it("reduces by multiply-high: bucket y is exactly the words [bucketStart(y), bucketStart(y + 1))", () => {
    const rng = seededRng(3);
    for (const g of [2, 3, 5, 9, 1000, 2 ** 20]) {
      expect(bucketStart(0, g)).toBe(0);
      expect(bucketStart(g, g)).toBe(2 ** 32);
      for (let i = 0; i < 2000; i++) {
        const word = rng.nextUint32();
        const y = Math.floor((word * g) / 2 ** 32);
        expect(word >= bucketStart(y, g) && word < bucketStart(y + 1, g)).toBe(true);
      }
      // Bucket sizes differ by at most one word: the bias per bucket is below 2^-32.
      const sizes = new Set<number>();
      for (let y = 0; y < Math.min(g, 50); y++) sizes.add(bucketStart(y + 1, g) - bucketStart(y, g));
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
  });

  it("hits every bucket with probability 1/g and collides with probability 1/g (seeded z-tests)", () => {
    // 200,000 seeds per pair; |z| < 5 per check (120 checks: family-wise false alarm ~1e-4).
    // This is the property OLH's unbiasedness rests on.
    const rng = seededRng(5);
    const seeds = rng.fill(new Uint32Array(200_000));
    for (const g of [2, 4, 9]) {
      for (const [x, other] of [
        [0, 1],
        [1, 2],
        [0, 63],
        [5, 37],
        [1000, 1001],
        [7, 7 + 2 ** 16],
      ] as const) {
        let collisions = 0;
        let inFirstBucket = 0;
        for (const seed of seeds) {
          const hx = localHash(seed, x, g);
          if (hx === localHash(seed, other, g)) collisions++;
          if (hx === 0) inFirstBucket++;
        }
        const sd = Math.sqrt(((1 / g) * (1 - 1 / g)) / seeds.length);
        expect(Math.abs(collisions / seeds.length - 1 / g) / sd, `g ${g}, pair ${x}, ${other}`).toBeLessThan(
          5,
        );
        expect(Math.abs(inFirstBucket / seeds.length - 1 / g) / sd, `g ${g}, value ${x}`).toBeLessThan(5);
      }
    }
  });

  it("keys differ for every value of a large domain", () => {
    const keys = new Set<number>();
    for (let x = 0; x < 100_000; x++) keys.add(hashKey(x));
    expect(keys.size).toBe(100_000);
  });
});
