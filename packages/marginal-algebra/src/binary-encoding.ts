import type { BinaryEncoding, DecodedTable, MarginalTable, RecordStore, Schema } from "./api.js";
import { fail } from "./errors.js";
import { createSchema, schemaCardinalities, validateSchema } from "./schema.js";
import { createTable } from "./table.js";

/** Bits needed for a cardinality: `ceil(log2 c)` (1 for c = 2). */
function bitsFor(c: number): number {
  let bits = 0;
  while (2 ** bits < c) bits++;
  return bits;
}

/**
 * The binary encoding of a schema (../../../docs/algorithms.md#hadamard-methods: non-binary data for the binary
 * methods): attribute i becomes `ceil(log2 c_i)` binary attributes named
 * `<name>.bit<p>` (p = power of two, most significant first). Binary attributes
 * map to themselves. O(d + total bits).
 */
export function binaryEncoding(schema: Schema): BinaryEncoding {
  validateSchema(schema, "binaryEncoding");
  const cards = schemaCardinalities(schema);
  const bits = cards.map(bitsFor);
  const offsets: number[] = [];
  const specs: { name: string; labels: string[] }[] = [];
  schema.attributes.forEach((attribute, i) => {
    offsets.push(specs.length);
    if (bits[i] === 1) specs.push({ name: attribute.name, labels: [...attribute.labels] });
    else
      for (let p = bits[i]! - 1; p >= 0; p--)
        specs.push({ name: `${attribute.name}.bit${p}`, labels: ["0", "1"] });
  });
  return Object.freeze({
    source: schema,
    schema: createSchema(specs),
    bits: Object.freeze(bits),
    offsets: Object.freeze(offsets),
  });
}

/** Encode one record of the source schema into bits (written into `out` when given). O(total bits). */
export function encodeRecord(encoding: BinaryEncoding, record: ArrayLike<number>, out?: number[]): number[] {
  const d = encoding.bits.length;
  if (record.length !== d) fail("encodeRecord", `record must have ${d} values`, record.length);
  const bitsOut = out ?? new Array<number>(encoding.schema.attributes.length);
  for (let i = 0; i < d; i++) {
    const v = record[i]!;
    const c = encoding.source.attributes[i]!.labels.length;
    if (!(Number.isInteger(v) && v >= 0 && v < c))
      fail("encodeRecord", `value ${i} must be an integer in [0, ${c})`, v);
    const b = encoding.bits[i]!;
    const offset = encoding.offsets[i]!;
    for (let j = 0; j < b; j++) bitsOut[offset + j] = Math.floor(v / 2 ** (b - 1 - j)) % 2;
  }
  return bitsOut;
}

/**
 * Decode bits back into a record of the source schema. Throws when a code is not a
 * value (>= c_i) or a bit is not 0/1. O(total bits).
 */
export function decodeRecord(encoding: BinaryEncoding, bits: ArrayLike<number>, out?: number[]): number[] {
  const total = encoding.schema.attributes.length;
  if (bits.length !== total) fail("decodeRecord", `bits must have ${total} entries`, bits.length);
  const d = encoding.bits.length;
  const record = out ?? new Array<number>(d);
  for (let i = 0; i < d; i++) {
    let v = 0;
    const offset = encoding.offsets[i]!;
    for (let j = 0; j < encoding.bits[i]!; j++) {
      const bit = bits[offset + j]!;
      if (bit !== 0 && bit !== 1) fail("decodeRecord", `bit ${offset + j} must be 0 or 1`, bit);
      v = v * 2 + bit;
    }
    const c = encoding.source.attributes[i]!.labels.length;
    if (v >= c) fail("decodeRecord", `code of attribute ${i} must be < ${c}`, v);
    record[i] = v;
  }
  return record;
}

/**
 * The binary-encoded copy of a record store (Uint8Array columns of bits, over
 * `encoding.schema`). O(n * total bits).
 */
export function encodeStore(encoding: BinaryEncoding, store: RecordStore): RecordStore {
  if (store.columns.length !== encoding.bits.length) {
    fail(
      "encodeStore",
      `store must have ${encoding.bits.length} columns like the encoded schema`,
      store.columns.length,
    );
  }
  const n = store.size;
  const columns: Uint8Array[] = [];
  store.columns.forEach((source, i) => {
    const b = encoding.bits[i]!;
    for (let j = 0; j < b; j++) {
      const shift = b - 1 - j;
      const column = new Uint8Array(n);
      for (let r = 0; r < n; r++) column[r] = (source[r]! >>> shift) & 1;
      columns.push(column);
    }
  });
  return Object.freeze({ schema: encoding.schema, size: n, columns: Object.freeze(columns) });
}

/**
 * The bit attributes (ascending indices into `encoding.schema`) that encode the
 * given source attributes: the query to ask a binary method for a marginal over
 * them. O(total bits of the set).
 */
export function encodedAttributes(encoding: BinaryEncoding, attributes: readonly number[]): number[] {
  const sorted = [...attributes].sort((x, y) => x - y);
  const out: number[] = [];
  for (const a of sorted) {
    if (!Number.isInteger(a) || a < 0 || a >= encoding.bits.length) {
      fail("encodedAttributes", `attribute indices must be in [0, ${encoding.bits.length})`, a);
    }
    for (let j = 0; j < encoding.bits[a]!; j++) out.push(encoding.offsets[a]! + j);
  }
  return out;
}

/**
 * Decode a table over bit attributes (all the bits of some source attributes)
 * into the table over those source attributes. Because bits are most significant
 * first and groups are ascending, the bit cell of values (v_1..v_k) is the mixed-
 * radix index with radices 2^bits; the cells of codes >= c_i are left out and
 * their total reported as `invalidMass` (the caller decides whether to renormalise).
 * O(|bit table|).
 */
export function decodeTable(encoding: BinaryEncoding, table: MarginalTable): DecodedTable {
  const source: number[] = [];
  let at = 0;
  const attributes = table.attributes;
  while (at < attributes.length) {
    const bitIndex = attributes[at]!;
    const a = encoding.offsets.findIndex(
      (offset, i) => bitIndex >= offset && bitIndex < offset + encoding.bits[i]!,
    );
    if (a < 0 || bitIndex !== encoding.offsets[a])
      fail("decodeTable", "table attributes must be whole bit groups", attributes);
    for (let j = 0; j < encoding.bits[a]!; j++) {
      if (attributes[at + j] !== bitIndex + j)
        fail("decodeTable", "table attributes must be whole bit groups", attributes);
    }
    source.push(a);
    at += encoding.bits[a]!;
  }
  const cards = source.map((a) => encoding.source.attributes[a]!.labels.length);
  const radices = source.map((a) => 2 ** encoding.bits[a]!);
  const out = createTable(source, cards, { unit: table.unit });
  const k = source.length;
  const digits = new Array<number>(k).fill(0);
  let invalidMass = 0;
  for (let u = 0; u < table.cells.length; u++) {
    let valid = true;
    let index = 0;
    for (let i = 0; i < k; i++) {
      if (digits[i]! >= cards[i]!) valid = false;
      index = index * cards[i]! + digits[i]!;
    }
    if (valid) out.cells[index] = table.cells[u]!;
    else invalidMass += table.cells[u]!;
    for (let i = k - 1; i >= 0; i--) {
      digits[i]++;
      if (digits[i]! < radices[i]!) break;
      digits[i] = 0;
    }
  }
  return { table: out, invalidMass };
}
