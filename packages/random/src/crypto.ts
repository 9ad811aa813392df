import type { Rng } from "./api.js";
import { fail } from "./errors.js";
import { floatFromWords } from "./seeded.js";

/** `crypto.getRandomValues` fills at most 65,536 bytes per call (Web Crypto spec). */
const MAX_BYTES_PER_CALL = 65_536;
const MAX_WORDS_PER_CALL = MAX_BYTES_PER_CALL / 4;
/** Fills of at most this many words are served from the buffer. */
const SMALL_FILL_WORDS = 256;

interface CryptoLike {
  getRandomValues<T extends ArrayBufferView>(array: T): T;
}

function platformCrypto(): CryptoLike {
  const candidate = (globalThis as { crypto?: CryptoLike }).crypto;
  if (!candidate || typeof candidate.getRandomValues !== "function") {
    throw new Error(
      "cryptoRng: no Web Crypto getRandomValues on this platform (Node >= 20 and all current browsers have globalThis.crypto)",
    );
  }
  return candidate;
}

/** Options of {@link cryptoRng}. */
export interface CryptoRngOptions {
  /** Words buffered between calls to the platform, 1..16384 (default 16384 = 64 KiB). */
  bufferWords?: number;
  /** A Web Crypto implementation to use instead of `globalThis.crypto` (tests, exotic runtimes). */
  crypto?: CryptoLike;
}

let shared: Rng | undefined;

/**
 * The one shared {@link cryptoRng} (default options), created on the first call:
 * the default source of the client paths (calm-core's `calmReport`, the client's
 * `createReport` and report ids, the device oracles), which so share one buffer. O(1).
 */
export function defaultCryptoRng(): Rng {
  shared ??= cryptoRng();
  return shared;
}

/**
 * The platform's cryptographically secure generator (Web Crypto
 * `getRandomValues`), buffered: single draws come from a buffer refilled 64 KiB at
 * a time, bulk `fill` (more than 256 words) goes straight to the platform in
 * 64 KiB chunks, smaller fills come from the buffer. Works in
 * Node >= 20 and browsers without Node built-ins. The default source of every
 * client-side path. O(1) amortised per word.
 */
export function cryptoRng(options: CryptoRngOptions = {}): Rng {
  const source = options.crypto ?? platformCrypto();
  const bufferWords = options.bufferWords ?? MAX_WORDS_PER_CALL;
  if (!Number.isInteger(bufferWords) || bufferWords < 1 || bufferWords > MAX_WORDS_PER_CALL) {
    fail("cryptoRng", `bufferWords must be an integer in [1, ${MAX_WORDS_PER_CALL}]`, bufferWords);
  }
  const buffer = new Uint32Array(bufferWords);
  let position = bufferWords;

  const nextUint32 = (): number => {
    if (position === bufferWords) {
      source.getRandomValues(buffer);
      position = 0;
    }
    return buffer[position++]!;
  };

  return {
    nextUint32,
    fill(out: Uint32Array): Uint32Array {
      if (out.length <= SMALL_FILL_WORDS) {
        // Small fills come from the buffer: one platform call per 64 KiB, not per fill.
        for (let i = 0; i < out.length; i++) out[i] = nextUint32();
        return out;
      }
      for (let start = 0; start < out.length; start += MAX_WORDS_PER_CALL) {
        source.getRandomValues(out.subarray(start, Math.min(out.length, start + MAX_WORDS_PER_CALL)));
      }
      return out;
    },
    nextFloat(): number {
      const high = nextUint32();
      return floatFromWords(high, nextUint32());
    },
  };
}
