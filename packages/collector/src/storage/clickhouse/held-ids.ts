import { UuidSet } from "../../uuid-set.js";

/**
 * The report ids one process knows a shard holds, per round: ids it inserted
 * there (added before the insert, taken out again when the insert or its check
 * fails) and ids its checks found stored twice. A cache, never the truth: an id
 * missing here is looked up on the shard before it is inserted, which finds it
 * if the shard held it already (another collector, or this one before a
 * restart), so forgetting ids (`limit`, a closed round) costs a lookup, never
 * a wrong count. It answers a retry to the same process without a round trip.
 *
 * Memory: 32 to 64 bytes per id ({@link UuidSet}); past `limit` ids in all,
 * every round's set is dropped (`trim`) and refilled from new inserts. O(1) expected per id.
 */
export class HeldIds {
  readonly #rounds = new Map<number, UuidSet>();
  readonly #limit: number;
  #size = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Adds the id (words `at..at+3` of `words`) to round `round`'s set; false if it was there. */
  add(round: number, words: Uint32Array, at: number): boolean {
    let set = this.#rounds.get(round);
    if (set === undefined) {
      set = new UuidSet();
      this.#rounds.set(round, set);
    }
    const added = set.add(words, at);
    if (added) this.#size++;
    return added;
  }

  /** Takes the id out of round `round`'s set (an insert that may have failed). */
  delete(round: number, words: Uint32Array, at: number): void {
    if (this.#rounds.get(round)?.delete(words, at)) this.#size--;
  }

  /** Forgets round `round` (closed: nothing more is stored in it). */
  forget(round: number): void {
    const set = this.#rounds.get(round);
    if (set === undefined) return;
    this.#size -= set.size;
    this.#rounds.delete(round);
  }

  /** Drops every set when more than `limit` ids are held (call between groups, never within one). */
  trim(): void {
    if (this.#size > this.#limit) this.clear();
  }

  clear(): void {
    this.#rounds.clear();
    this.#size = 0;
  }

  get size(): number {
    return this.#size;
  }
}
