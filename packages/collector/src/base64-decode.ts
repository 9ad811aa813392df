const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/**
 * Decode canonical standard base64 into exactly `length` bytes, or return
 * `undefined` when `text` is not the one canonical encoding of `length` bytes
 * (wrong length, a character outside the alphabet, misplaced or missing `=`,
 * non-zero bits in the last character's unused low bits). O(length).
 */
export function decodeBase64(text: string, length: number): Uint8Array | undefined {
  if (text.length !== 4 * Math.ceil(length / 3)) return undefined;
  const out = new Uint8Array(length);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    let word = 0;
    let digits = 0;
    for (let j = 0; j < 4; j++) {
      const ch = text[i + j]!;
      const v = ALPHABET.indexOf(ch);
      if (v < 0) {
        // "=" only as padding of the final group, after the data digits.
        if (ch !== "=" || i + 4 !== text.length) return undefined;
      } else if (digits !== j) return undefined;
      else {
        word = (word << 6) | v;
        digits++;
      }
    }
    const bytes = Math.min(3, length - o);
    if (digits !== bytes + 1 && !(bytes === 3 && digits === 4)) return undefined;
    word <<= 6 * (4 - digits);
    // Canonical: the bits below the last encoded byte are zero.
    if ((word & ((1 << (8 * (3 - bytes))) - 1)) !== 0) return undefined;
    for (let k = 0; k < bytes; k++) out[o++] = (word >> (16 - 8 * k)) & 255;
  }
  return out;
}
