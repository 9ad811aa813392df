import { encodeBase64 } from "../base64.js";
import { concat, type RsaPublicKey, toBigInt } from "./blind-rsa.js";

/** Privacy Pass token type 0x0002 (RFC 9578 §6: publicly verifiable, blind RSA 2048). */
export const TOKEN_TYPE = 0x0002;
/** Bytes of a token: type (2), nonce (32), challenge digest (32), key id (32), authenticator (256). */
export const TOKEN_BYTES = 2 + 32 + 32 + 32 + 256;
/** Bytes of the signed part of a token (everything before the authenticator). */
export const TOKEN_INPUT_BYTES = 98;

export { encodeBase64 };

/** Standard base64 decoded, or undefined when `text` is not canonical base64. O(length). */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  if (typeof text !== "string" || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text))
    return undefined;
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < text.length; i += 4) {
    const v = [0, 1, 2, 3].map((j) => (text[i + j] === "=" ? 0 : alphabet.indexOf(text[i + j]!)));
    const n = (v[0]! << 18) | (v[1]! << 12) | (v[2]! << 6) | v[3]!;
    for (const shift of [16, 8, 0]) if (at < out.length) out[at++] = (n >> shift) & 0xff;
  }
  return encodeBase64(out) === text ? out : undefined;
}

/** One DER element at `at`: its tag, where its content starts and ends. */
function derElement(bytes: Uint8Array, at: number): { tag: number; start: number; end: number } {
  const tag = bytes[at]!;
  let length = bytes[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[start + i]!;
    start += count;
  }
  if (start + length > bytes.length) throw new Error("token key: truncated DER");
  return { tag, start, end: start + length };
}

/**
 * The modulus and exponent of an RSA SubjectPublicKeyInfo (the RSASSA-PSS form
 * Privacy Pass names its keys by, or rsaEncryption): SEQUENCE { algorithm,
 * BIT STRING { SEQUENCE { INTEGER n, INTEGER e } } }. Throws on anything else. O(bytes).
 */
export function rsaKeyOfSpki(spki: Uint8Array): RsaPublicKey {
  const outer = derElement(spki, 0);
  const algorithm = derElement(spki, outer.start);
  const bits = derElement(spki, algorithm.end);
  if (outer.tag !== 0x30 || algorithm.tag !== 0x30 || bits.tag !== 0x03)
    throw new Error("token key: not a SubjectPublicKeyInfo");
  const key = derElement(spki, bits.start + 1);
  const n = derElement(spki, key.start);
  const e = derElement(spki, n.end);
  if (key.tag !== 0x30 || n.tag !== 0x02 || e.tag !== 0x02) throw new Error("token key: not an RSA key");
  const modulus = toBigInt(spki.subarray(n.start, n.end));
  return {
    n: modulus,
    e: toBigInt(spki.subarray(e.start, e.end)),
    bytes: Math.ceil(modulus.toString(16).length / 2),
  };
}

/** SHA-256 of the concatenated parts (Web Crypto). */
export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", concat(...parts)));
}

/** Domain-separation label of the view hash. */
export const VIEW_LABEL = new TextEncoder().encode("calm-ldp token view v1");
/** Domain-separation label of the report-id hash. */
export const ID_LABEL = new TextEncoder().encode("calm-ldp token report id v1");

/** The view for SHA-256(VIEW_LABEL || authenticator) = `digest` (see {@link viewOfToken}). O(1). */
export function viewOfDigest(digest: Uint8Array, views: number): number {
  let u = 0;
  for (let i = 0; i < 6; i++) u = u * 256 + digest[i]!;
  return Math.floor((u / 2 ** 48) * views);
}

/** Lower-case hex of `bytes`, two digits a byte. O(bytes). */
export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** The report id for SHA-256(ID_LABEL || token) = `digest` (see {@link reportIdOfToken}). O(1). */
export function reportIdOfDigest(digest: Uint8Array): string {
  const d = digest.slice(0, 16);
  d[6] = (d[6]! & 0x0f) | 0x40;
  d[8] = (d[8]! & 0x3f) | 0x80;
  const hex = toHex(d);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The view a token binds its report to: floor(u m) for u the first 48 bits of
 * SHA-256("calm-ldp token view v1" || authenticator) / 2^48, with m the plan's
 * views. The authenticator is the issuer's signature, which the client cannot
 * compute before the issuer answers (and, the signature being deterministic in
 * the blinded message, cannot re-roll without a new token): so the view is as
 * random as CALM's uniform group choice (bias below m / 2^48), but not the
 * client's choice. O(1).
 */
export async function viewOfToken(token: Uint8Array, views: number): Promise<number> {
  return viewOfDigest(await sha256(VIEW_LABEL, token.subarray(TOKEN_INPUT_BYTES)), views);
}

/**
 * The report id a token's report carries: a version-4 UUID of SHA-256("calm-ldp
 * token report id v1" || token). A token spent twice gives the same id, so the
 * storage's report-id de-duplication (shared by collector processes, kept until
 * the round's ids are dropped) refuses to count it again, and a retried report
 * stays idempotent. Unlinkable to issuance: the issuer never saw the token. O(1).
 */
export async function reportIdOfToken(token: Uint8Array): Promise<string> {
  return reportIdOfDigest(await sha256(ID_LABEL, token));
}
