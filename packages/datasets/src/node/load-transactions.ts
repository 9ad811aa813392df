import type { LoadedDataset, TransactionOptions } from "../api.js";
import { MalformedDataError } from "../errors.js";
import {
  createTransactionCounter,
  createTransactionEncoder,
  topItems,
  transactionDataset,
} from "../transactions.js";
import { forEachChunk } from "./read-file.js";

/**
 * Loads a transaction file (FIMI or SPMF, optionally gzipped) as the d most frequent items, one binary
 * attribute each, in two streaming passes: count item frequencies (memory O(distinct items)), then encode
 * (memory O(rows * d) bytes). Never holds the file. O(bytes + rows * d).
 */
export async function loadTransactions(path: string, options: TransactionOptions): Promise<LoadedDataset> {
  const where = "loadTransactions";
  const counter = createTransactionCounter(where, path, options.format ?? "auto");
  await forEachChunk(where, path, (bytes) => counter.push(bytes));
  const counts = counter.finish();
  if (counts.transactions === 0) throw new MalformedDataError(where, path, 0, "", "no transactions found");
  const items = topItems(where, counts, options.d);
  const encoder = createTransactionEncoder(where, path, counts.format, items, counts.transactions);
  await forEachChunk(where, path, (bytes) => encoder.push(bytes));
  return transactionDataset(where, counts, items, encoder.finish(), [path]);
}
