import { defaultCryptoRng } from "@calm-ldp/random";
import { StorageError } from "./errors.js";

/** Hex digit value of each ASCII code below 128 (-1: not a lowercase hex digit). */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX["0123456789abcdef".charCodeAt(i)] = i;

/** Value of the hex digits of `id` from `from` to `to` (exclusive), negative if one is not a lowercase hex digit. */
function hexRun(id: string, from: number, to: number, value: number): number {
  let v = value;
  for (let i = from; i < to; i++) {
    const digit = HEX[id.charCodeAt(i)] ?? -1;
    if (digit < 0) return -1;
    v = v * 16 + digit;
  }
  return v;
}

/**
 * The 128 bits of a canonical UUID `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`
 * (lowercase hex, as `validateBatch` accepts report ids) as four 32-bit words,
 * most significant first, written to `out[at..at+3]`. Throws `StorageError` on
 * any other string. O(36).
 * @internal
 */
export function uuidWords(id: string, out: Uint32Array, at: number): void {
  if (
    id.length !== 36 ||
    id.charCodeAt(8) !== 45 ||
    id.charCodeAt(13) !== 45 ||
    id.charCodeAt(18) !== 45 ||
    id.charCodeAt(23) !== 45
  )
    throw new StorageError(`report id ${JSON.stringify(id)} is not a lowercase UUID`);
  const w0 = hexRun(id, 0, 8, 0);
  const w1 = hexRun(id, 14, 18, hexRun(id, 9, 13, 0));
  const w2 = hexRun(id, 24, 28, hexRun(id, 19, 23, 0));
  const w3 = hexRun(id, 28, 36, 0);
  if (w0 < 0 || w1 < 0 || w2 < 0 || w3 < 0)
    throw new StorageError(`report id ${JSON.stringify(id)} is not a lowercase UUID`);
  out[at] = w0;
  out[at + 1] = w1;
  out[at + 2] = w2;
  out[at + 3] = w3;
}

/** The slots of a new set (a power of two). */
const INITIAL_SLOTS = 1024;

/**
 * A set of UUIDs held as 128-bit keys in one typed array (open addressing,
 * linear probing, backward-shift deletion, at most half full): 16 bytes per
 * slot, so 32 to 64 bytes per id and no object per id for the garbage collector
 * to trace (a `Set<string>` of 36-character ids took about 100 bytes each).
 * The probe start is a hash of the four words mixed with a seed drawn from Web
 * Crypto when the set is made, so ids chosen by clients cannot aim at one probe
 * chain without knowing it. `has`, `add`, `delete`: O(1) expected; growth
 * (doubling) O(size). Keys are given as four words (see {@link uuidWords}) at
 * an offset of a `Uint32Array`.
 * @internal
 */
export class UuidSet {
  #keys = new Uint32Array(4 * INITIAL_SLOTS);
  #mask = INITIAL_SLOTS - 1;
  /** Ids in the table (the all-zero id, which marks an empty slot, is held by #zero). */
  #count = 0;
  #zero = false;
  readonly #seed = defaultCryptoRng().nextUint32();

  get size(): number {
    return this.#count + (this.#zero ? 1 : 0);
  }

  /** Bytes of the table (16 per slot). */
  get bytes(): number {
    return this.#keys.byteLength;
  }

  has(words: Uint32Array, at: number): boolean {
    const w0 = words[at]!;
    const w1 = words[at + 1]!;
    const w2 = words[at + 2]!;
    const w3 = words[at + 3]!;
    if ((w0 | w1 | w2 | w3) === 0) return this.#zero;
    return !this.#isEmpty(this.#slot(w0, w1, w2, w3));
  }

  /** Adds the id; false if it was already there. */
  add(words: Uint32Array, at: number): boolean {
    const w0 = words[at]!;
    const w1 = words[at + 1]!;
    const w2 = words[at + 2]!;
    const w3 = words[at + 3]!;
    if ((w0 | w1 | w2 | w3) === 0) {
      if (this.#zero) return false;
      this.#zero = true;
      return true;
    }
    const slot = this.#slot(w0, w1, w2, w3);
    if (!this.#isEmpty(slot)) return false;
    const keys = this.#keys;
    const k = 4 * slot;
    keys[k] = w0;
    keys[k + 1] = w1;
    keys[k + 2] = w2;
    keys[k + 3] = w3;
    if (++this.#count * 2 > this.#mask + 1) this.#grow();
    return true;
  }

  /** Removes the id; false if it was not there. */
  delete(words: Uint32Array, at: number): boolean {
    const w0 = words[at]!;
    const w1 = words[at + 1]!;
    const w2 = words[at + 2]!;
    const w3 = words[at + 3]!;
    if ((w0 | w1 | w2 | w3) === 0) {
      const had = this.#zero;
      this.#zero = false;
      return had;
    }
    let hole = this.#slot(w0, w1, w2, w3);
    if (this.#isEmpty(hole)) return false;
    const keys = this.#keys;
    const mask = this.#mask;
    // Backward shift: move later keys of the chain into the hole when their home slot allows it.
    let slot = hole;
    for (;;) {
      slot = (slot + 1) & mask;
      const k = 4 * slot;
      const k0 = keys[k]!;
      const k1 = keys[k + 1]!;
      const k2 = keys[k + 2]!;
      const k3 = keys[k + 3]!;
      if ((k0 | k1 | k2 | k3) === 0) break;
      const home = this.#hash(k0, k1, k2, k3) & mask;
      // The key may move to the hole if its home is not cyclically within (hole, slot].
      if (((slot - home) & mask) >= ((slot - hole) & mask)) {
        keys.copyWithin(4 * hole, k, k + 4);
        hole = slot;
      }
    }
    keys.fill(0, 4 * hole, 4 * hole + 4);
    this.#count--;
    return true;
  }

  /** The slot holding the (non-zero) key, or the empty slot that ends its probe chain. */
  #slot(w0: number, w1: number, w2: number, w3: number): number {
    const keys = this.#keys;
    let slot = this.#hash(w0, w1, w2, w3) & this.#mask;
    for (;;) {
      const k = 4 * slot;
      const k0 = keys[k]!;
      const k1 = keys[k + 1]!;
      const k2 = keys[k + 2]!;
      const k3 = keys[k + 3]!;
      if ((k0 | k1 | k2 | k3) === 0 || (k0 === w0 && k1 === w1 && k2 === w2 && k3 === w3)) return slot;
      slot = (slot + 1) & this.#mask;
    }
  }

  #isEmpty(slot: number): boolean {
    const keys = this.#keys;
    const k = 4 * slot;
    return (keys[k]! | keys[k + 1]! | keys[k + 2]! | keys[k + 3]!) === 0;
  }

  /** murmur3-style mixing of the four words and the seed. */
  #hash(w0: number, w1: number, w2: number, w3: number): number {
    let h = this.#seed;
    h = Math.imul(h ^ w0, 0xcc9e2d51);
    h = Math.imul((h << 15) | (h >>> 17), 0x1b873593) ^ w1;
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
    h = Math.imul(h ^ w2, 0xcc9e2d51);
    h = Math.imul((h << 15) | (h >>> 17), 0x1b873593) ^ w3;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  /**
   * Doubles the table and moves every key to its slot in the new one: element
   * copies into locals, no view object per key (a `subarray` + `set` per key
   * made growth most of the DuckDB storage's own CPU in a round's first
   * million reports). O(slots).
   */
  #grow(): void {
    const old = this.#keys;
    const keys = new Uint32Array(2 * old.length);
    const mask = 2 * (this.#mask + 1) - 1;
    for (let k = 0; k < old.length; k += 4) {
      const k0 = old[k]!;
      const k1 = old[k + 1]!;
      const k2 = old[k + 2]!;
      const k3 = old[k + 3]!;
      if ((k0 | k1 | k2 | k3) === 0) continue;
      let at = 4 * (this.#hash(k0, k1, k2, k3) & mask);
      while ((keys[at]! | keys[at + 1]! | keys[at + 2]! | keys[at + 3]!) !== 0)
        at = (at + 4) & (4 * mask + 3);
      keys[at] = k0;
      keys[at + 1] = k1;
      keys[at + 2] = k2;
      keys[at + 3] = k3;
    }
    this.#keys = keys;
    this.#mask = mask;
  }
}
