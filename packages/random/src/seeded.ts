import type { SeededRng } from "./api.js";
import { fail } from "./errors.js";
import { splitmix64Words } from "./seed.js";

const TWO_POW_53_INV = 1 / 2 ** 53;
const JUMP = [0x8764000b, 0xf542d2d3, 0x6fa035c3, 0x77f2db5b];

/**
 * xoshiro128** 1.1 (Blackman and Vigna, 2018): 128-bit state, period 2^128 - 1,
 * passes BigCrush; every operation is 32-bit, which is what JavaScript engines do
 * fastest. Not cryptographically secure: use it for simulations and tests only.
 */
class Xoshiro128 implements SeededRng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(
    readonly seed: number,
    readonly stream: number,
    state?: Uint32Array,
  ) {
    const words =
      state ??
      splitmix64Words(
        (Math.floor(seed / 2 ** 32) ^ Math.imul(stream >>> 0, 0x9e3779b9)) >>> 0,
        (seed ^ Math.imul(Math.floor(stream / 2 ** 32) + 1, 0x85ebca6b)) >>> 0,
        4,
      );
    this.s0 = words[0]! | 0;
    this.s1 = words[1]! | 0;
    this.s2 = words[2]! | 0;
    this.s3 = words[3]! | 0;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1; // the all-zero state is a fixed point
  }

  nextUint32(): number {
    const s1 = this.s1;
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  fill(out: Uint32Array): Uint32Array {
    let s0 = this.s0;
    let s1 = this.s1;
    let s2 = this.s2;
    let s3 = this.s3;
    for (let i = 0, len = out.length; i < len; i++) {
      out[i] = Math.imul(rotl(Math.imul(s1, 5), 7), 9);
      const t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = (s3 << 11) | (s3 >>> 21);
    }
    this.s0 = s0;
    this.s1 = s1;
    this.s2 = s2;
    this.s3 = s3;
    return out;
  }

  nextFloat(): number {
    const high = this.nextUint32() >>> 5; // 27 bits
    const low = this.nextUint32() >>> 6; // 26 bits
    return (high * 67108864 + low) * TWO_POW_53_INV;
  }

  fork(stream: number): SeededRng {
    checkStream("SeededRng.fork", stream);
    return new Xoshiro128(this.seed, stream);
  }

  clone(): SeededRng {
    const copy = new Xoshiro128(this.seed, this.stream, Uint32Array.of(this.s0, this.s1, this.s2, this.s3));
    return copy;
  }

  jump(): void {
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;
    let t3 = 0;
    for (const word of JUMP) {
      for (let b = 0; b < 32; b++) {
        if (word & (1 << b)) {
          t0 ^= this.s0;
          t1 ^= this.s1;
          t2 ^= this.s2;
          t3 ^= this.s3;
        }
        this.nextUint32();
      }
    }
    this.s0 = t0;
    this.s1 = t1;
    this.s2 = t2;
    this.s3 = t3;
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

function checkStream(where: string, stream: number): void {
  if (!Number.isSafeInteger(stream) || stream < 0) fail(where, "stream must be a safe integer >= 0", stream);
}

/**
 * A fast seeded generator (xoshiro128**), for simulations and tests.
 *
 * `seed` is any safe integer >= 0; `stream` (default 0) selects one of 2^53
 * independent streams of that seed (see {@link SeededRng.fork}). The same
 * (seed, stream) always yields the same sequence, on every platform.
 * Throughput: ~1 ns per 32-bit word in bulk (`fill`).
 */
export function seededRng(seed: number, stream = 0): SeededRng {
  if (!Number.isSafeInteger(seed) || seed < 0) fail("seededRng", "seed must be a safe integer >= 0", seed);
  checkStream("seededRng", stream);
  return new Xoshiro128(seed, stream);
}

/**
 * A generator started from an explicit 128-bit state (four words, not all zero):
 * for known-answer tests against the reference C implementation.
 * @internal
 */
export function xoshiro128FromState(state: Uint32Array): SeededRng {
  return new Xoshiro128(0, 0, state);
}

/** @internal exported for the float conversion shared with cryptoRng */
export function floatFromWords(high: number, low: number): number {
  return ((high >>> 5) * 67108864 + (low >>> 6)) * TWO_POW_53_INV;
}
