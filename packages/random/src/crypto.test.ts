import { describe, expect, it } from "vitest";
import { cryptoRng, defaultCryptoRng } from "./crypto.js";

function recordingCrypto() {
  const calls: number[] = [];
  let counter = 0;
  return {
    calls,
    crypto: {
      getRandomValues<T extends ArrayBufferView>(array: T): T {
        if (array.byteLength > 65_536) throw new Error(`QuotaExceededError: ${array.byteLength} bytes`);
        calls.push(array.byteLength);
        const words = new Uint32Array(array.buffer, array.byteOffset, array.byteLength / 4);
        for (let i = 0; i < words.length; i++) words[i] = counter++;
        return array;
      },
    },
  };
}

describe("cryptoRng", () => {
  it("never asks the platform for more than 65,536 bytes at once", () => {
    const { calls, crypto } = recordingCrypto();
    const rng = cryptoRng({ crypto });
    const out = rng.fill(new Uint32Array(100_000));
    expect(out[99_999]).toBe(99_999);
    expect(Math.max(...calls)).toBeLessThanOrEqual(65_536);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(400_000);
  });

  it("serves single words from a buffer refilled in 64 KiB chunks", () => {
    const { calls, crypto } = recordingCrypto();
    const rng = cryptoRng({ crypto });
    for (let i = 0; i < 20_000; i++) expect(rng.nextUint32()).toBe(i);
    expect(calls).toEqual([65_536, 65_536]);
    expect(() => cryptoRng({ crypto, bufferWords: 20_000 })).toThrow(
      /bufferWords must be an integer in \[1, 16384\]/,
    );
  });

  it("uses the platform's Web Crypto by default and yields floats in [0, 1)", () => {
    const rng = cryptoRng();
    const words = rng.fill(new Uint32Array(70_000));
    expect(new Set(words).size).toBeGreaterThan(69_000); // 2^32 range: collisions among 70k are ~0.6 on average
    for (let i = 0; i < 10_000; i++) {
      const x = rng.nextFloat();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });
});

describe("cryptoRng small fills", () => {
  it("serves fills of up to 256 words from the buffer, in order", () => {
    const { calls, crypto } = recordingCrypto();
    const rng = cryptoRng({ crypto });
    const a = rng.fill(new Uint32Array(10));
    const b = rng.fill(new Uint32Array(256));
    expect(Array.from(a)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(b[0]).toBe(10);
    expect(calls).toEqual([65_536]);
  });
});

describe("defaultCryptoRng", () => {
  it("is one shared generator, created on first use, drawing from the platform", () => {
    const rng = defaultCryptoRng();
    expect(defaultCryptoRng()).toBe(rng);
    expect(rng).not.toBe(cryptoRng());
    const words = new Uint32Array(8);
    rng.fill(words);
    expect(new Set(words).size).toBeGreaterThan(1);
  });
});
