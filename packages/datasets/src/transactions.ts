import type { LoadedDataset, TransactionOptions } from "./api.js";
import { fail, MalformedDataError } from "./errors.js";
import { finishDataset, type RawAttribute } from "./finish-dataset.js";
import { createIntLineTokenizer } from "./int-line-tokenizer.js";

/** A push-based byte consumer that produces a result at the end. */
export interface BytePass<T> {
  push(bytes: Uint8Array): void;
  finish(): T;
}

/** Item frequencies from the first pass over a transaction file. */
export interface TransactionCounts {
  /** The layout read (`auto` resolved). */
  readonly format: "fimi" | "spmf";
  /** Lines holding at least one item: the users. */
  readonly transactions: number;
  /** Lines without items (blank, or an empty SPMF sequence); they are skipped. */
  readonly empty: number;
  /** Distinct item ids. */
  readonly items: Float64Array;
  /** `counts[i]`: transactions containing `items[i]` (an item repeated in one transaction counts once). */
  readonly counts: Float64Array;
}

function isComment(line: string): boolean {
  return line.startsWith("#") || line.startsWith("%") || line.startsWith("@");
}

/** Resolves the layout of one line under `auto`: SPMF when it holds a -1 or -2 token. */
function lineFormat(values: Float64Array, count: number): "fimi" | "spmf" {
  for (let i = 0; i < count; i++) if (values[i]! < 0) return "spmf";
  return "fimi";
}

/**
 * Walks the items of one line, checking tokens against the layout: FIMI tokens are item ids >= 0; SPMF
 * tokens are item ids >= 0, `-1` (end of itemset) and `-2` (end of sequence, last token). Calls `onItem`
 * for every item id. O(tokens).
 */
function forEachItem(
  where: string,
  file: string,
  format: "fimi" | "spmf",
  values: Float64Array,
  count: number,
  lineNumber: number,
  onItem: (item: number) => void,
): void {
  for (let i = 0; i < count; i++) {
    const token = values[i]!;
    if (token >= 0) onItem(token);
    else if (format === "spmf" && (token === -1 || (token === -2 && i === count - 1))) continue;
    else {
      const expected =
        format === "spmf" ? "an item id >= 0, -1, or -2 as the last token" : "an item id >= 0 (FIMI)";
      throw new MalformedDataError(
        where,
        file,
        lineNumber,
        `token ${i + 1}`,
        `expected ${expected} (got ${token})`,
      );
    }
  }
}

/**
 * First pass: counts, for every item, the transactions that contain it. Lines starting with `#`, `%` or
 * `@` are comments (SPMF metadata); any other text is malformed. Memory O(distinct items). O(bytes).
 */
export function createTransactionCounter(
  where: string,
  fileName: string,
  format: "auto" | "fimi" | "spmf" = "auto",
): BytePass<TransactionCounts> {
  let resolved: "fimi" | "spmf" | undefined = format === "auto" ? undefined : format;
  const slots = new Map<number, number>();
  let items = new Float64Array(1024);
  let counts = new Float64Array(1024);
  let lastSeen = new Int32Array(1024).fill(-1);
  let transactions = 0;
  let empty = 0;
  let itemsOnLine = 0;
  const onItem = (item: number) => {
    let slot = slots.get(item);
    if (slot === undefined) {
      slot = slots.size;
      slots.set(item, slot);
      if (slot === items.length) {
        const grow = <T extends Float64Array | Int32Array>(
          a: T,
          make: (n: number) => T,
          fill?: number,
        ): T => {
          const grown = make(a.length * 2);
          if (fill !== undefined) grown.fill(fill);
          grown.set(a);
          return grown;
        };
        items = grow(items, (n) => new Float64Array(n));
        counts = grow(counts, (n) => new Float64Array(n));
        lastSeen = grow(lastSeen, (n) => new Int32Array(n), -1);
      }
      items[slot] = item;
    }
    itemsOnLine++;
    if (lastSeen[slot] !== transactions) {
      lastSeen[slot] = transactions;
      counts[slot]++;
    }
  };
  const tokenizer = createIntLineTokenizer(where, fileName, {
    values(values, count, lineNumber) {
      if (count > 0 && resolved === undefined) resolved = lineFormat(values, count);
      itemsOnLine = 0;
      if (count > 0) forEachItem(where, fileName, resolved!, values, count, lineNumber, onItem);
      if (itemsOnLine > 0) transactions++;
      else empty++;
    },
    text: rejectNonComment(where, fileName),
  });
  return {
    push: (bytes) => tokenizer.push(bytes),
    finish() {
      tokenizer.end();
      const distinct = slots.size;
      return {
        format: resolved ?? "fimi",
        transactions,
        empty,
        items: items.slice(0, distinct),
        counts: counts.slice(0, distinct),
      };
    },
  };
}

/**
 * The d most frequent items, by decreasing transaction count (ties: smaller item id first).
 * O(m log m) for m distinct items.
 */
export function topItems(where: string, counts: TransactionCounts, d: number): number[] {
  if (!(Number.isSafeInteger(d) && d >= 1))
    fail(where, "d (the number of most frequent items) must be an integer >= 1", d);
  const m = counts.items.length;
  if (d > m) fail(where, `d must be <= ${m} (the distinct items in the file)`, d);
  const order = Array.from({ length: m }, (_, i) => i).sort(
    (a, b) => counts.counts[b]! - counts.counts[a]! || counts.items[a]! - counts.items[b]!,
  );
  return order.slice(0, d).map((slot) => counts.items[slot]!);
}

/**
 * Second pass: one binary column per kept item (1 = the transaction contains it), for the `rows`
 * non-empty transactions found by the first pass. Memory O(rows * d) bytes. O(bytes).
 */
export function createTransactionEncoder(
  where: string,
  fileName: string,
  format: "fimi" | "spmf",
  items: readonly number[],
  rows: number,
): BytePass<Uint8Array[]> {
  const attribute = new Map<number, number>();
  for (let j = 0; j < items.length; j++) attribute.set(items[j]!, j);
  const columns = items.map(() => new Uint8Array(rows));
  let row = 0;
  let itemsOnLine = 0;
  const onItem = (item: number) => {
    itemsOnLine++;
    const j = attribute.get(item);
    if (j !== undefined && row < rows) columns[j]![row] = 1;
  };
  const tokenizer = createIntLineTokenizer(where, fileName, {
    values(values, count, lineNumber) {
      itemsOnLine = 0;
      if (count > 0) forEachItem(where, fileName, format, values, count, lineNumber, onItem);
      if (itemsOnLine > 0) row++;
    },
    text: rejectNonComment(where, fileName),
  });
  return {
    push: (bytes) => tokenizer.push(bytes),
    finish() {
      const lines = tokenizer.end();
      if (row !== rows) {
        throw new MalformedDataError(
          where,
          fileName,
          lines,
          "",
          `the second pass found ${row} transactions, the first ${rows} (did the file change while loading?)`,
        );
      }
      return columns;
    },
  };
}

/** Builds the dataset from the two passes' results. O(rows * d). */
export function transactionDataset(
  where: string,
  counts: TransactionCounts,
  items: readonly number[],
  columns: readonly Uint8Array[],
  files: readonly string[],
): LoadedDataset {
  const attributes: RawAttribute[] = items.map((item) => ({
    name: `item ${item}`,
    labels: ["0", "1"],
    kind: "binary",
  }));
  const distinct = counts.items.length;
  return finishDataset(
    {
      attributes,
      columns,
      rows: counts.transactions,
      source: `transactions:${files.join(",")}`,
      files,
      rowsRead: counts.transactions + counts.empty,
      drops: [{ reason: "no items on the line (blank line or empty sequence)", rows: counts.empty }],
      preprocessing: [
        `read as ${counts.format === "spmf" ? "SPMF sequences (-1/-2 separators dropped; a sequence's items form one set)" : "FIMI transactions"}`,
        `kept the ${items.length} most frequent of ${distinct} distinct items as binary attributes (1 = the transaction contains the item), in decreasing frequency (ties: smaller id first)`,
      ],
    },
    where,
  );
}

/**
 * Parses in-memory transactions (FIMI or SPMF, text or bytes): the d most frequent items as binary
 * attributes, one record per non-empty line. Two passes over the input (count, then encode), as the file
 * loader does. O(bytes + rows * d).
 */
export function parseTransactions(input: string | Uint8Array, options: TransactionOptions): LoadedDataset {
  const where = "parseTransactions";
  const fileName = options.fileName ?? "<input>";
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const counter = createTransactionCounter(where, fileName, options.format ?? "auto");
  counter.push(bytes);
  const counts = counter.finish();
  if (counts.transactions === 0)
    throw new MalformedDataError(where, fileName, 0, "", "no transactions found");
  const items = topItems(where, counts, options.d);
  const encoder = createTransactionEncoder(where, fileName, counts.format, items, counts.transactions);
  encoder.push(bytes);
  return transactionDataset(where, counts, items, encoder.finish(), [fileName]);
}

/** The tokenizer's handler of a line that is not numbers: a comment is skipped, anything else is malformed. */
function rejectNonComment(where: string, fileName: string): (line: string, lineNumber: number) => void {
  return (line, lineNumber) => {
    if (!isComment(line)) {
      throw new MalformedDataError(
        where,
        fileName,
        lineNumber,
        "token 1",
        `expected an item id (got ${JSON.stringify(line.slice(0, 40))})`,
      );
    }
  };
}
