import { uuidWords } from "../../uuid-set.js";

/**
 * A round's support counts while a group is built: `counts[offsets[view] + cell]`
 * (wide views only), and which views keep their support as bits (`narrow[view]` 1).
 */
export interface RoundSupport {
  readonly offsets: Int32Array;
  readonly counts: Int32Array;
  readonly narrow: Uint8Array;
}

/**
 * The report rows of the group being built, in typed arrays that grow by
 * doubling and are reused by the next group: round, view, the id's four
 * words (see `uuidWords`) and the cell bits' low and high 32 bits (set by the
 * caller after `stage`) per row. `flushed` rows have reached the appender.
 */
export class StagedRows {
  rounds = new Int32Array(1024);
  views = new Int32Array(1024);
  ids = new Uint32Array(4 * 1024);
  bits = new Int32Array(2 * 1024);
  count = 0;
  flushed = 0;

  reset(): void {
    this.count = 0;
    this.flushed = 0;
  }

  /** Stage a row (parsing the id); returns its index. */
  stage(round: number, id: string, view: number): number {
    if (this.count === this.rounds.length) {
      const grow = <T extends Int32Array | Uint32Array>(old: T, next: T) => {
        next.set(old);
        return next;
      };
      this.rounds = grow(this.rounds, new Int32Array(2 * this.count));
      this.views = grow(this.views, new Int32Array(2 * this.count));
      this.ids = grow(this.ids, new Uint32Array(8 * this.count));
      this.bits = grow(this.bits, new Int32Array(4 * this.count));
    }
    const row = this.count++;
    uuidWords(id, this.ids, 4 * row);
    this.rounds[row] = round;
    this.views[row] = view;
    return row;
  }

  /** Take back the last staged row (a duplicate). */
  unstage(): void {
    this.count--;
  }
}
