import {
  type DuckDBConnection,
  DuckDBPendingResultState,
  type DuckDBPreparedStatement,
} from "@duckdb/node-api";
import type { AcceptedReport, GroupCommitListener, RoundState, StoredRound, StoreResult } from "../../api.js";
import { RoundClosedError, StorageError } from "../../errors.js";
import { GroupCommit } from "../../group-commit.js";
import { cellOffsets } from "../../storage-rows.js";
import { UuidSet, uuidWords } from "../../uuid-set.js";
import { flushStaged, TableAppenders } from "./appenders.js";
import { closeRoundRow, dropDueRounds, insertRound, writeCounters, writeProbe } from "./rounds.js";
import { type RoundSupport, StagedRows } from "./staged-rows.js";
import { bitViews } from "./support-sql.js";

/** Reports per group commit at most. */
const MAX_GROUP_REPORTS = 50_000;

/** A write for the writer: every one goes through the group commit. */
export type WriteJob =
  | { kind: "round"; round: Omit<StoredRound, "no"> }
  | { kind: "reports"; round: StoredRound; reports: readonly AcceptedReport[] }
  | { kind: "counter"; round: StoredRound; name: string; amount: number }
  | { kind: "close"; round: StoredRound; at: string }
  | { kind: "drop"; closedBefore: string; at: string }
  | { kind: "probe" };
/** What a reports job of a closed round returns (storeReports throws RoundClosedError). */
const CLOSED = Symbol("closed");
type WriteResult = StoredRound | StoreResult | RoundState | string[] | typeof CLOSED | undefined;

/** What a group's jobs change besides its report rows: applied in its transaction or after its COMMIT. */
class GroupEffects {
  /** Rounds this group closes. */
  readonly closing = new Set<number>();
  /** Rounds whose ids this group drops. */
  readonly compacted: number[] = [];
  /** Counter amounts, summed per (round, name), written just before the COMMIT. */
  readonly counters = new Map<string, { round: number; name: string; amount: number }>();

  addCounter(round: number, name: string, amount: number): void {
    const key = `${round}\u0000${name}`;
    const entry = this.counters.get(key) ?? { round, name, amount: 0 };
    entry.amount += amount;
    this.counters.set(key, entry);
  }
}

/**
 * The single writer connection and its group commit (`GroupCommit`): every
 * write is a job, and the jobs that arrive while a group's transaction runs
 * share the next one. Report ids are de-duplicated against the round's ids
 * held in memory ({@link UuidSet}, loaded on the round's first write); the
 * rows reach the tables through the writer's appenders. See openDuckDbStorage.
 */
export class DuckDbWriter {
  /** Set when the storage closes: later jobs fail. */
  closed = false;
  /** The last group commit failed (full or read-only disk, ...); cleared by the next one that succeeds. */
  writeFailed = false;
  readonly #queue: GroupCommit<WriteJob, WriteResult>;
  /** Report ids stored per round number (loaded on the round's first write). */
  readonly #ids = new Map<number, UuidSet>();
  /** Support counts of the rows staged since the last flush, per round: one count per cell of the plan. */
  readonly #support = new Map<number, RoundSupport>();
  /** The rows of the group being built (see {@link StagedRows}). */
  readonly #rows = new StagedRows();
  readonly #appenders: TableAppenders;

  /**
   * `begin`: `BEGIN TRANSACTION` prepared on the writer, run synchronously (see
   * {@link DuckDbWriter.#begin}); `closedRounds`: numbers of the closed rounds
   * (loaded at open; the writer adds to it after each close commits).
   */
  constructor(
    readonly connection: DuckDBConnection,
    readonly beginStatement: DuckDBPreparedStatement,
    readonly closedRounds: Set<number>,
  ) {
    this.#appenders = new TableAppenders(connection);
    this.#queue = new GroupCommit(
      (jobs) => this.#commit(jobs),
      (job) => (job.kind === "reports" ? job.reports.length : 1),
      MAX_GROUP_REPORTS,
    );
  }

  /** Run `job` in the next group; resolves after its COMMIT. */
  submit(job: WriteJob): Promise<WriteResult> {
    if (this.closed) return Promise.reject(new StorageError("DuckDB storage: closed"));
    return this.#queue.submit(job);
  }

  async storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult> {
    if (this.closedRounds.has(round.no)) throw new RoundClosedError(round.id);
    const result = await this.submit({ kind: "reports", round, reports });
    if (result === CLOSED) throw new RoundClosedError(round.id);
    return result as StoreResult;
  }

  observe(listener: GroupCommitListener): void {
    this.#queue.observe(listener);
  }

  /** Resolves when the queue is empty. */
  idle(): Promise<void> {
    return this.#queue.idle();
  }

  /**
   * After {@link idle}: close the appenders, checkpoint, close the connection.
   * Every committed change goes into the file itself, so the file is whole once
   * this resolves: the native database is freed with its last handle (the
   * garbage collector may run later), and another instance opened on the file
   * meanwhile must not find part of it in the log only. A checkpoint that fails
   * (disk full, read-only) leaves the changes in the write-ahead log, where the
   * next open finds them.
   */
  async close(): Promise<void> {
    this.#appenders.close();
    await this.connection.run("CHECKPOINT").catch(() => undefined);
    this.beginStatement.destroySync();
    this.connection.closeSync();
  }

  /** One transaction for a group of jobs; the group's ids leave the in-memory sets again if it fails. */
  async #commit(jobs: WriteJob[]): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    // The rows this group stores (#rows): their ids join the round's set at once (one
    // lookup per report also catches repeats within the group) and leave it again if the commit fails.
    const rows = this.#rows;
    rows.reset();
    const group = new GroupEffects();
    try {
      for (const job of jobs)
        if (job.kind === "reports" && !this.closedRounds.has(job.round.no)) await this.#idsOf(job.round.no);
      this.#begin();
      for (const job of jobs) results.push(await this.#run(job, group));
      await flushStaged(this.#appenders, rows, this.#support);
      await writeCounters(this.connection, group.counters.values());
      await this.connection.run("COMMIT");
    } catch (error) {
      this.writeFailed = true;
      for (let row = 0; row < rows.count; row++) this.#ids.get(rows.rounds[row]!)?.delete(rows.ids, 4 * row);
      for (const { counts } of this.#support.values()) counts.fill(0);
      this.#appenders.close();
      await this.connection.run("ROLLBACK").catch(() => undefined);
      throw new StorageError(`DuckDB write failed: ${(error as Error).message.split("\n")[0]}`);
    }
    this.writeFailed = false;
    // A closed round takes no more reports: its ids need no memory any more.
    for (const no of group.closing) {
      this.closedRounds.add(no);
      this.#ids.delete(no);
      this.#support.delete(no);
    }
    for (const no of group.compacted) this.#ids.delete(no);
    return results;
  }

  /** One job of the group, inside its transaction. */
  async #run(job: WriteJob, group: GroupEffects): Promise<WriteResult> {
    switch (job.kind) {
      case "round":
        return insertRound(this.connection, job.round);
      case "probe":
        await writeProbe(this.connection);
        return undefined;
      case "counter":
        group.addCounter(job.round.no, job.name, job.amount);
        return undefined;
      case "close": {
        const state = await closeRoundRow(this.connection, job.round.no, job.at);
        group.closing.add(job.round.no);
        return state;
      }
      case "drop": {
        // Rows staged by earlier jobs of this group must reach the tables before they are counted.
        await flushStaged(this.#appenders, this.#rows, this.#support);
        const { ids, compacted } = await dropDueRounds(this.connection, job.closedBefore, job.at);
        group.compacted.push(...compacted);
        return ids;
      }
      case "reports":
        if (this.closedRounds.has(job.round.no) || group.closing.has(job.round.no)) return CLOSED;
        return this.#stage(job, group);
    }
  }

  /**
   * Stage a batch's new reports as rows of the group: each id joins the round's
   * set (a repeat, stored or earlier in the group, is a duplicate and counted),
   * its cells go into the row's bits (narrow views) or the round's group counts
   * (wide views). O(reports x cells).
   */
  #stage(job: WriteJob & { kind: "reports" }, group: GroupEffects): StoreResult {
    const rows = this.#rows;
    const no = job.round.no;
    const stored = this.#ids.get(no)!;
    const { offsets, counts, narrow } = this.#supportOf(job.round);
    let count = 0;
    for (const report of job.reports) {
      const row = rows.stage(no, report.id, report.view);
      if (!stored.add(rows.ids, 4 * row)) {
        rows.unstage();
        continue;
      }
      count++;
      // Narrow view: the cells as the row's bits (low word, high word). Wide view: group counts.
      let low = 0;
      let high = 0;
      if (narrow[report.view] === 1) {
        for (const cell of report.cells)
          if (cell < 32) low |= 1 << cell;
          else high |= 1 << (cell - 32);
      } else {
        const offset = offsets[report.view]!;
        for (const cell of report.cells) counts[offset + cell]!++;
      }
      rows.bits[2 * row] = low;
      rows.bits[2 * row + 1] = high;
    }
    const duplicates = job.reports.length - count;
    if (duplicates > 0) group.addCounter(no, "duplicates", duplicates);
    return { stored: count, duplicates };
  }

  async #idsOf(round: number): Promise<UuidSet> {
    let ids = this.#ids.get(round);
    if (!ids) {
      const result = await this.connection.runAndReadAll(
        "SELECT report_id::VARCHAR FROM calm_reports WHERE round_no = $1",
        [round],
      );
      ids = new UuidSet();
      const words = new Uint32Array(4);
      for (const id of (result.getColumns()[0] ?? []) as string[]) {
        uuidWords(id, words, 0);
        ids.add(words, 0);
      }
      this.#ids.set(round, ids);
    }
    return ids;
  }

  #supportOf(round: StoredRound): RoundSupport {
    let support = this.#support.get(round.no);
    if (!support) {
      const offsets = cellOffsets(round.plan);
      support = {
        offsets,
        counts: new Int32Array(offsets[round.plan.views.length]!),
        narrow: bitViews(round.plan).narrow,
      };
      this.#support.set(round.no, support);
    }
    return support;
  }

  /**
   * Start the group's transaction synchronously: the prepared `BEGIN` run to its
   * result by `runTask` on the event loop (microseconds; DuckDB takes the
   * snapshot at the first statement), instead of an asynchronous query whose
   * answer waited its turn behind the HTTP callbacks (~0.4 ms per group,
   * 0.5 us per report, measured). Its pending result is never read: the next
   * statement on the connection replaces it.
   */
  #begin(): void {
    const pending = this.beginStatement.start();
    while (pending.runTask() !== DuckDBPendingResultState.RESULT_READY);
  }
}
