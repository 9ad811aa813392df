import {
  BIGINT,
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBDataChunk,
  type DuckDBType,
  INTEGER,
  UUID,
} from "@duckdb/node-api";
import type { RoundSupport, StagedRows } from "./staged-rows.js";
import { setIntegers, writeBigInts, writeUuids } from "./vectors.js";

/** Rows per DuckDB data chunk (its standard vector size). */
const CHUNK_ROWS = 2048;

/**
 * The writer's appenders by table, kept from one transaction to the next (an
 * appender's flush appends inside the connection's open transaction; creating
 * one costs ~0.3 ms on the event loop); closed and forgotten when a group fails.
 */
export class TableAppenders {
  readonly #appenders = new Map<string, DuckDBAppender>();

  constructor(readonly writer: DuckDBConnection) {}

  /**
   * Append rows `from` to `to` (exclusive) to `table` through the writer's
   * appender, a data chunk of up to CHUNK_ROWS rows at a time, each filled by
   * `fill(chunk, start, end)` with rows `start..end` (its row 0 is row `start`).
   */
  async append(
    table: string,
    types: DuckDBType[],
    from: number,
    to: number,
    fill: (chunk: DuckDBDataChunk, start: number, end: number) => void,
  ): Promise<void> {
    if (from === to) return;
    const appender = await this.#appenderOf(table);
    for (let start = from; start < to; start += CHUNK_ROWS) {
      const end = Math.min(to, start + CHUNK_ROWS);
      const chunk = DuckDBDataChunk.create(types, end - start);
      fill(chunk, start, end);
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  }

  /** Close and forget the writer's appenders (after a failed group, or at close). */
  close(): void {
    for (const appender of this.#appenders.values()) {
      try {
        appender.closeSync();
      } catch {
        // Its rows go with the transaction rolled back next; a new appender is made on next use.
      }
    }
    this.#appenders.clear();
  }

  /** The writer's appender of `table`, created on first use. */
  async #appenderOf(table: string): Promise<DuckDBAppender> {
    let appender = this.#appenders.get(table);
    if (!appender) {
      appender = await this.writer.createAppender(table);
      this.#appenders.set(table, appender);
    }
    return appender;
  }
}

/**
 * Append the rows staged since the last flush to the tables (inside the open
 * transaction): the reports (with the bits of their cells), and one
 * support-count row per (round, view, cell) the reports of wide views support
 * (at most those views' cells, whatever the group's size; none for plans
 * without wide views); zeroes the counts.
 */
export async function flushStaged(
  appenders: TableAppenders,
  rows: StagedRows,
  support: ReadonlyMap<number, RoundSupport>,
): Promise<void> {
  if (rows.flushed === rows.count) return;
  await appendReports(appenders, rows, rows.flushed, rows.count);
  rows.flushed = rows.count;
  const countRows: [number[], number[], number[], number[]] = [[], [], [], []];
  for (const [no, { offsets, counts }] of support)
    for (let view = 0; view + 1 < offsets.length; view++)
      for (let at = offsets[view]!; at < offsets[view + 1]!; at++) {
        if (counts[at] === 0) continue;
        countRows[0].push(no);
        countRows[1].push(view);
        countRows[2].push(at - offsets[view]!);
        countRows[3].push(counts[at]!);
        counts[at] = 0;
      }
  await appenders.append(
    "calm_support_counts",
    [INTEGER, INTEGER, INTEGER, INTEGER],
    0,
    countRows[0].length,
    (chunk, start, end) => {
      countRows.forEach((column, j) => {
        setIntegers(chunk.getColumnVector(j), column, start, end);
      });
    },
  );
}

/** Append staged rows `from` to `to` (exclusive) to `calm_reports`: round, id (as a UUID), view, cell bits. */
async function appendReports(
  appenders: TableAppenders,
  rows: StagedRows,
  from: number,
  to: number,
): Promise<void> {
  await appenders.append("calm_reports", [INTEGER, UUID, INTEGER, BIGINT], from, to, (chunk, start, end) => {
    setIntegers(chunk.getColumnVector(0), rows.rounds, start, end);
    writeUuids(chunk.getColumnVector(1), rows.ids, start, end);
    setIntegers(chunk.getColumnVector(2), rows.views, start, end);
    writeBigInts(chunk.getColumnVector(3), rows.bits, start, end);
  });
}
