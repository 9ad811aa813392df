/**
 * The client side of RSA blind signatures as Privacy Pass token type 0x0002 uses
 * them (RFC 9474 RSABSSA-SHA384-PSS-Deterministic, RFC 9578 §6): EMSA-PSS encoding
 * with SHA-384 and a 48-byte salt, blinding by a uniform r in [1, n), and
 * finalization with the signature checked (s^e mod n = the encoded message).
 * BigInt arithmetic and Web Crypto digests only: no Node built-ins, so it runs in
 * browsers. Cost per token: two SHA-384 digests plus six for MGF1, one modular
 * inverse (O(log n) BigInt steps) and three modular exponentiations by e = 65537
 * (17 squarings each) or a multiplication; about a millisecond in V8.
 */

/** An RSA public key: modulus and exponent, and the modulus length in bytes. */
export interface RsaPublicKey {
  readonly n: bigint;
  readonly e: bigint;
  readonly bytes: number;
}

const SALT_BYTES = 48;
const HASH_BYTES = 48;

const subtle = () => globalThis.crypto.subtle;

async function sha384(...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await subtle().digest("SHA-384", concat(...parts)));
}

/** Bytes concatenated. O(total length). */
export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Big-endian bytes to an integer. */
export function toBigInt(bytes: Uint8Array): bigint {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value;
}

/** An integer to `length` big-endian bytes. */
export function toBytes(value: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--, value >>= 8n) out[i] = Number(value & 0xffn);
  return out;
}

/** base^exp mod n by square and multiply. O(bits of exp) multiplications. */
export function modPow(base: bigint, exp: bigint, n: bigint): bigint {
  let result = 1n;
  let b = base % n;
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % n;
    b = (b * b) % n;
  }
  return result;
}

/** a^-1 mod n by the extended Euclidean algorithm, or undefined when gcd(a, n) > 1. */
function modInverse(a: bigint, n: bigint): bigint | undefined {
  let [oldR, r] = [a % n, n];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) return undefined;
  return ((oldS % n) + n) % n;
}

/** MGF1 with SHA-384 (RFC 8017 B.2.1): `length` bytes from `seed`. */
async function mgf1(seed: Uint8Array, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(Math.ceil(length / HASH_BYTES) * HASH_BYTES);
  for (let counter = 0; counter * HASH_BYTES < length; counter++)
    out.set(await sha384(seed, toBytes(BigInt(counter), 4)), counter * HASH_BYTES);
  return out.subarray(0, length);
}

/** EMSA-PSS-ENCODE (RFC 8017 §9.1.1) of `message` to emBits = modulus bits - 1, SHA-384, 48-byte salt. */
async function pssEncode(message: Uint8Array, key: RsaPublicKey, salt: Uint8Array): Promise<Uint8Array> {
  const emBits = key.n.toString(2).length - 1;
  const emLength = Math.ceil(emBits / 8);
  const mHash = await sha384(message);
  const h = await sha384(new Uint8Array(8), mHash, salt);
  const db = new Uint8Array(emLength - HASH_BYTES - 1);
  db[db.length - SALT_BYTES - 1] = 1;
  db.set(salt, db.length - SALT_BYTES);
  const mask = await mgf1(h, db.length);
  for (let i = 0; i < db.length; i++) db[i]! ^= mask[i]!;
  db[0]! &= 0xff >>> (8 * emLength - emBits);
  return concat(db, h, Uint8Array.of(0xbc));
}

/** What the client keeps between blinding and finalization. */
export interface BlindState {
  readonly encoded: bigint;
  readonly inverse: bigint;
}

/**
 * Blind `message` for `key` (RFC 9474 §4.2 Blind): the blinded message to send
 * the issuer, and the state `finalizeSignature` needs. `random(bytes)` fills
 * random bytes (default Web Crypto). The issuer learns nothing about `message`:
 * z = m r^e mod n is uniform for a uniform r.
 */
export async function blindMessage(
  message: Uint8Array,
  key: RsaPublicKey,
  random: (bytes: number) => Uint8Array = randomBytes,
): Promise<{ blinded: Uint8Array; state: BlindState }> {
  const encoded = toBigInt(await pssEncode(message, key, random(SALT_BYTES)));
  for (;;) {
    const r = toBigInt(random(key.bytes + 8)) % key.n;
    const inverse = r === 0n ? undefined : modInverse(r, key.n);
    if (inverse === undefined) continue;
    const blinded = (encoded * modPow(r, key.e, key.n)) % key.n;
    return { blinded: toBytes(blinded, key.bytes), state: { encoded, inverse } };
  }
}

/**
 * Unblind the issuer's answer (RFC 9474 §4.4 Finalize) and check it: s = z^d r^-1
 * mod n must satisfy s^e mod n = the encoded message, else the issuer answered
 * wrongly (or with another key) and this throws.
 */
export function finalizeSignature(
  blindSignature: Uint8Array,
  state: BlindState,
  key: RsaPublicKey,
): Uint8Array {
  const s = (toBigInt(blindSignature) * state.inverse) % key.n;
  if (modPow(s, key.e, key.n) !== state.encoded)
    throw new Error("token issuance: the issuer's blind signature does not verify under its key");
  return toBytes(s, key.bytes);
}

/** Random bytes from Web Crypto. */
export function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 65536)
    globalThis.crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65536)));
  return out;
}
