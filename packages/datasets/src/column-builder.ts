import type { Column } from "@calm-ldp/marginal-algebra";

/**
 * A growable array of unsigned 32-bit codes (capacity doubles), for columns whose length is known only at
 * the end of a stream. Amortised O(1) per push; memory at most twice the final size.
 * @internal
 */
export class CodeBuffer {
  private data: Uint32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.data = new Uint32Array(Math.max(16, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Uint32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  /** The pushed values, as a view (no copy) of exactly `length` elements. */
  view(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/**
 * Copies codes in [0, cardinality) into the narrowest column type: Uint8Array up to 256 categories,
 * Uint16Array up to 65,536, Uint32Array beyond. O(rows).
 * @internal
 */
export function packColumn(codes: ArrayLike<number>, cardinality: number): Column {
  if (cardinality <= 256) return Uint8Array.from(codes);
  if (cardinality <= 65536) return Uint16Array.from(codes);
  return Uint32Array.from(codes);
}

/** @internal An empty column of the narrowest type for `cardinality` categories. */
export function allocateColumn(rows: number, cardinality: number): Column {
  if (cardinality <= 256) return new Uint8Array(rows);
  if (cardinality <= 65536) return new Uint16Array(rows);
  return new Uint32Array(rows);
}
