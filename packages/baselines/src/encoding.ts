import {
  type BinaryEncoding,
  binaryEncoding,
  createTable,
  decodeTable,
  encodedAttributes,
  type MarginalTable,
  perObject,
  type RecordStore,
  type Schema,
} from "@calm-ldp/marginal-algebra";

/**
 * @internal What the binary-encoded methods need about a schema's binary encoding
 * (marginal-algebra's `binaryEncoding`: attribute i becomes `bits[i] = ceil(log2 c_i)`
 * bits, most significant first). A record's bits form one `totalBits`-bit word
 * vector: encoded attribute b is bit `totalBits - 1 - b` (attribute 0's most
 * significant bit is the most significant bit, as in hadamard's masks), split into
 * `stride` 32-bit words (bit t in word t >>> 5). When totalBits <= 32 the single
 * word is the record's cell index in the full binary table.
 */
export interface EncodingRuntime {
  readonly encoding: BinaryEncoding;
  readonly cardinalities: readonly number[];
  readonly bits: readonly number[];
  readonly totalBits: number;
  readonly stride: number;
  /** Lowest bit position of each source attribute's code: `totalBits - offset - bits`. */
  readonly shifts: readonly number[];
}

/** @internal The encoding runtime of a schema, cached per schema object. O(total bits) the first time. */
export const encodingRuntime: (schema: Schema) => EncodingRuntime = /* @__PURE__ */ perObject(
  (schema: Schema) => {
    const encoding = binaryEncoding(schema);
    const totalBits = encoding.schema.attributes.length;
    return {
      encoding,
      cardinalities: schema.attributes.map((a) => a.labels.length),
      bits: encoding.bits,
      totalBits,
      stride: Math.max(1, Math.ceil(totalBits / 32)),
      shifts: encoding.bits.map((b, i) => totalBits - encoding.offsets[i]! - b),
    };
  },
);

/** @internal Write the bit words of one (validated) record into `out[offset .. offset + stride)`. O(total bits). */
export function recordMask(
  runtime: EncodingRuntime,
  record: ArrayLike<number>,
  out: Uint32Array,
  offset: number,
): void {
  const { stride, shifts, bits } = runtime;
  for (let w = 0; w < stride; w++) out[offset + w] = 0;
  for (let a = 0; a < shifts.length; a++) {
    const v = record[a]!;
    const shift = shifts[a]!;
    for (let j = 0; j < bits[a]!; j++) {
      if ((v >>> j) & 1) {
        const t = shift + j;
        out[offset + (t >>> 5)]! |= 1 << (t & 31);
      }
    }
  }
}

/** @internal The bit words of every record of a store: `n * stride` words, record r at `r * stride`. O(n * total bits). */
export function storeMasks(runtime: EncodingRuntime, store: RecordStore): Uint32Array {
  const n = store.size;
  const { stride, shifts, bits } = runtime;
  const out = new Uint32Array(n * stride);
  if (stride === 1) {
    for (let a = 0; a < shifts.length; a++) {
      const column = store.columns[a]!;
      const shift = shifts[a]!;
      for (let r = 0; r < n; r++) out[r]! |= column[r]! << shift;
    }
    return out;
  }
  for (let a = 0; a < shifts.length; a++) {
    const column = store.columns[a]!;
    const shift = shifts[a]!;
    for (let j = 0; j < bits[a]!; j++) {
      const t = shift + j;
      const word = t >>> 5;
      const bit = 1 << (t & 31);
      for (let r = 0; r < n; r++) if ((column[r]! >>> j) & 1) out[r * stride + word]! |= bit;
    }
  }
  return out;
}

/** @internal The encoded (bit) attributes of a source query, ascending. */
export function encodedQuery(runtime: EncodingRuntime, attributes: readonly number[]): number[] {
  return encodedAttributes(runtime.encoding, attributes);
}

/**
 * @internal A table over the bits of some source attributes decoded onto them
 * (cells of codes that encode no value are dropped). With `renormalize`, the
 * valid cells are rescaled to the table's total (for estimates that are
 * distributions: the true mass of invalid codes is 0); otherwise they are left as
 * they are (unbiased estimates stay unbiased). O(cells).
 */
export function decodeAnswer(
  runtime: EncodingRuntime,
  table: MarginalTable,
  renormalize: boolean,
): MarginalTable {
  const decoded = decodeTable(runtime.encoding, table).table;
  if (renormalize) {
    let valid = 0;
    let total = 0;
    for (let u = 0; u < decoded.cells.length; u++) valid += decoded.cells[u]!;
    for (let u = 0; u < table.cells.length; u++) total += table.cells[u]!;
    if (valid > 0) for (let u = 0; u < decoded.cells.length; u++) decoded.cells[u]! *= total / valid;
  }
  return decoded;
}

/**
 * @internal The radix of each source attribute's digit in a method's cell index:
 * its cardinality when the method runs on the attributes as they are (`encoding`
 * null), else `2^bits` (its code). O(d).
 */
export function digitRadices(
  cardinalities: readonly number[],
  encoding: Pick<EncodingRuntime, "bits"> | null,
): readonly number[] {
  return encoding === null ? cardinalities : encoding.bits.map((b) => 2 ** b);
}

/**
 * @internal The answer to query `q` (ascending source attributes) from its cells:
 * a table over `q` itself when the method runs on the attributes as they are
 * (`encoding` null), else a table over the query's bits decoded onto `q` (codes of
 * no value dropped; `renormalize` as in {@link decodeAnswer}). O(cells).
 */
export function answerTable(
  encoding: EncodingRuntime | null,
  cardinalities: readonly number[],
  q: readonly number[],
  cells: Float64Array,
  renormalize = false,
): MarginalTable {
  if (encoding === null) {
    return createTable(
      q,
      q.map((a) => cardinalities[a]!),
      { cells },
    );
  }
  const bitsQuery = encodedQuery(encoding, q);
  const bitTable = createTable(
    bitsQuery,
    bitsQuery.map(() => 2),
    { cells },
  );
  return decodeAnswer(encoding, bitTable, renormalize);
}

/**
 * @internal The inverse of `decodeTable` for a true marginal: the table over the
 * bits of its attributes, each source cell at its code, 0 on codes that encode no
 * value. O(bit cells).
 */
export function encodeTable(runtime: EncodingRuntime, table: MarginalTable): MarginalTable {
  const attributes = encodedQuery(runtime, table.attributes);
  const out = createTable(
    attributes,
    attributes.map(() => 2),
    { unit: table.unit },
  );
  const radices = table.attributes.map((a) => 2 ** runtime.bits[a]!);
  const cards = table.cardinalities;
  const k = cards.length;
  const digits = new Array<number>(k).fill(0);
  for (let u = 0; u < table.cells.length; u++) {
    let index = 0;
    for (let i = 0; i < k; i++) index = index * radices[i]! + digits[i]!;
    out.cells[index] = table.cells[u]!;
    for (let i = k - 1; i >= 0; i--) {
      digits[i]!++;
      if (digits[i]! < cards[i]!) break;
      digits[i] = 0;
    }
  }
  return out;
}
