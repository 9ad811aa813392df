import { encodeBase64 } from "@calm-ldp/client";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64 } from "./base64-decode.js";

describe("base64", () => {
  it("matches the platform's standard base64 and round-trips every byte string", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const text = encodeBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString("base64"));
        expect(decodeBase64(text, bytes.length)).toEqual(bytes);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses every non-canonical or wrong-length text", () => {
    expect(decodeBase64("AA==", 1)).toEqual(new Uint8Array([0]));
    for (const [text, length] of [
      ["AB==", 1], // non-zero unused bits
      ["AA=", 1], // short
      ["AA", 1], // padding missing
      ["AAA=", 1], // one digit too many
      ["A===", 1],
      ["=AAA", 1],
      ["AA==AA==", 2], // padding in the middle
      ["AA-_", 3], // url alphabet
      ["AAAA", 2],
      ["AA A", 3],
      ["", 1],
    ] as const) {
      expect(decodeBase64(text, length), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("decodes only the one canonical text: fuzzed texts either fail or re-encode identically", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."AQgw+/=az09B"), maxLength: 12 }), (text) => {
        const length = Math.floor((text.length * 3) / 4);
        for (const n of [length - 2, length - 1, length]) {
          if (n < 0) continue;
          const bytes = decodeBase64(text, n);
          if (bytes) expect(encodeBase64(bytes)).toBe(text);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
