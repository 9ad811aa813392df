import type { AcceptedReport, GroupCommitListener, StoredRound, StoreResult } from "./api.js";
import { reportRowsBinary, type ShardHttp } from "./clickhouse-http.js";
import { GroupCommit } from "./group-commit.js";

/** The cell that marks "one report" in the counts (above every view's cells). */
export const REPORT_MARK = 4_294_967_295;

/** `force`: store even if the shard has the round closed (the rest of the batch was stored). */
export type Job = { round: StoredRound; reports: readonly AcceptedReport[]; force?: boolean };
/** What a job of a closed round returns (storeReports throws RoundClosedError). */
export const CLOSED = Symbol("closed");
export type JobResult = StoreResult | typeof CLOSED;

const idList = (ids: Iterable<string>) => [...ids].map((id) => `'${id}'`).join(",");

/**
 * One group of batches for one shard (`db` its database): per round, (1) one
 * query looks the group's ids up (rows held per id) and whether the round is
 * closed there; (2) one `RowBinary` insert writes the new reports, and the
 * materialized view `calm_cell_counts_mv` adds them to the round's counts in
 * the same statement; (3) one query re-reads the ids just inserted: an id with
 * two rows means another collector inserted it between (1) and (2) (the race of
 * two collectors on one id), and the surplus rows' counts are written off in
 * `calm_count_fixes` ({@link writeOffCopies}) before the group is answered.
 * Ids seen with several rows in (1) (a racer that died before its step 3) are
 * written off too. Duplicates found in (1) are added to the `duplicates` counter.
 *
 * Cost: three round trips per round in the group; O(ids) SQL text in (1) and (3),
 * ~30 + 4 x cells bytes per new report in (2).
 */
export async function storeShardGroup(
  shard: ShardHttp,
  db: string,
  jobs: readonly Job[],
): Promise<JobResult[]> {
  const byRound = new Map<number, Job[]>();
  for (const job of jobs) {
    const list = byRound.get(job.round.no);
    if (list) list.push(job);
    else byRound.set(job.round.no, [job]);
  }
  const results = new Map<Job, JobResult>();
  for (const [no, group] of byRound) {
    const ids = new Set<string>();
    for (const job of group) for (const report of job.reports) ids.add(report.id);
    // (1) The ids the shard holds (rows per id), and 'closed' when the round is closed.
    const held = new Map<string, number>();
    let closed = false;
    for (const [id, rows] of await shard.queryWithIds(
      `SELECT toString(report_id), count() FROM ${db}.calm_reports
       WHERE round_no = ${no} AND report_id IN ids GROUP BY report_id
       UNION ALL SELECT 'closed', toUInt64(0) FROM ${db}.calm_round_state WHERE round_no = ${no} LIMIT 1`,
      ids,
    )) {
      if (id === "closed") closed = true;
      else held.set(id!, Number(rows));
    }
    const copied = [...held].filter(([, rows]) => rows > 1).map(([id]) => id);
    const fresh: AcceptedReport[] = [];
    const taken = new Set(held.keys());
    let duplicates = 0;
    for (const job of group) {
      if (closed && !job.force) {
        results.set(job, CLOSED);
        continue;
      }
      let stored = 0;
      for (const report of job.reports) {
        if (taken.has(report.id)) continue;
        taken.add(report.id);
        fresh.push(report);
        stored++;
      }
      duplicates += job.reports.length - stored;
      results.set(job, { stored, duplicates: job.reports.length - stored });
    }
    if (fresh.length > 0) {
      // (2) The new reports, and their counts through the materialized view.
      await shard.insertBinary(`${db}.calm_reports`, reportRowsBinary(no, fresh));
      // (3) Whether another writer inserted some of them too meanwhile (more rows than ids), and which.
      const freshIds = fresh.map((r) => r.id);
      const [[rows]] = await shard.queryWithIds(
        `SELECT count() FROM ${db}.calm_reports WHERE round_no = ${no} AND report_id IN ids`,
        freshIds,
      );
      if (Number(rows) > fresh.length)
        for (const [id] of await shard.queryWithIds(
          `SELECT toString(report_id) FROM ${db}.calm_reports
           WHERE round_no = ${no} AND report_id IN ids GROUP BY report_id HAVING count() > 1`,
          freshIds,
        ))
          copied.push(id!);
    }
    if (copied.length > 0) await writeOffCopies(shard, db, no, copied);
    if (duplicates > 0)
      await shard.query(`INSERT INTO ${db}.calm_counters VALUES (${no}, 'duplicates', ${duplicates})`);
  }
  return jobs.map((job) => results.get(job)!);
}

/**
 * Ids of round `no` held in several rows on this shard: each id's rows are read,
 * and `calm_count_fixes` gets, per (id, view, cell) any of its rows touches, the
 * count that takes every row of the id out of `calm_cell_counts` but its first
 * (the least by view, then cells, which {@link keptRow} names), versioned by the
 * number of rows (`ReplacingMergeTree(copies)`: writing the same id again, by
 * any collector, replaces the rows, and a later count of copies wins). Exact
 * whatever the writers race: the counts read sum `calm_cell_counts` and each
 * (id, view, cell)'s latest fix. O(rows of those ids x cells).
 */
export async function writeOffCopies(shard: ShardHttp, db: string, no: number, ids: readonly string[]) {
  const rows = await shard.query(
    `SELECT toString(report_id), view, arrayStringConcat(arrayMap(c -> toString(c), cells), ',')
     FROM ${db}.calm_reports WHERE round_no = ${no} AND report_id IN (${idList(new Set(ids))})`,
  );
  const byId = new Map<string, { view: number; cells: number[] }[]>();
  for (const [id, view, cells] of rows) {
    const row = { view: Number(view), cells: cells === "" ? [] : cells!.split(",").map(Number) };
    const list = byId.get(id!);
    if (list) list.push(row);
    else byId.set(id!, [row]);
  }
  const values: string[] = [];
  for (const [id, copies] of byId) {
    if (copies.length < 2) continue;
    const fix = new Map<string, number>();
    const add = (row: { view: number; cells: number[] }, sign: number) => {
      for (const cell of [REPORT_MARK, ...row.cells]) {
        const key = `${row.view},${cell}`;
        fix.set(key, (fix.get(key) ?? 0) + sign);
      }
    };
    for (const row of copies) add(row, -1);
    add(keptRow(copies), +1);
    for (const [key, n] of fix) values.push(`(${no}, '${id}', ${key}, ${n}, ${copies.length})`);
  }
  if (values.length > 0) await shard.query(`INSERT INTO ${db}.calm_count_fixes VALUES ${values.join(",")}`);
}

/**
 * The row of an id the counts keep when it was stored several times: the least
 * by view, then by cells (compared as number lists). A full recount that keeps
 * one row per id the same way gives the same counts.
 */
export function keptRow<T extends { view: number; cells: readonly number[] }>(rows: readonly T[]): T {
  return rows.reduce((best, row) => (compareRows(row, best) < 0 ? row : best));
}

function compareRows(
  a: { view: number; cells: readonly number[] },
  b: { view: number; cells: readonly number[] },
) {
  if (a.view !== b.view) return a.view - b.view;
  for (let i = 0; i < Math.min(a.cells.length, b.cells.length); i++)
    if (a.cells[i] !== b.cells[i]) return a.cells[i]! - b.cells[i]!;
  return a.cells.length - b.cells.length;
}

/**
 * The writers of one shard in one process: `pipeline` group commits whose
 * groups run at once (a group's lookup overlapping the previous group's insert),
 * jobs dealt to them in turn. A group sharing an id with an earlier group still
 * running waits for it first, so within one process an id is looked up only
 * after any insert of it has finished, and `stored`/`duplicates` stay exact.
 * Waits go only to earlier groups, so none can deadlock.
 */
export class ShardWriter {
  readonly #commits: GroupCommit<Job, JobResult>[];
  readonly #running = new Set<{ ids: Set<string>; done: Promise<unknown> }>();
  #turn = 0;

  constructor(run: (jobs: Job[]) => Promise<JobResult[]>, pipeline: number, maxGroupReports: number) {
    this.#commits = Array.from(
      { length: pipeline },
      () =>
        new GroupCommit<Job, JobResult>(
          (jobs) => this.#ordered(jobs, run),
          (job) => job.reports.length,
          maxGroupReports,
        ),
    );
  }

  submit(job: Job): Promise<JobResult> {
    this.#turn = (this.#turn + 1) % this.#commits.length;
    return this.#commits[this.#turn]!.submit(job);
  }

  async idle(): Promise<void> {
    await Promise.all(this.#commits.map((commit) => commit.idle()));
  }

  /** Call `listener` after each group of this shard (its reports, duration, outcome; metrics). */
  observe(listener: GroupCommitListener): void {
    for (const commit of this.#commits) commit.observe(listener);
  }

  async #ordered(jobs: Job[], run: (jobs: Job[]) => Promise<JobResult[]>): Promise<JobResult[]> {
    const ids = new Set<string>();
    for (const job of jobs) for (const report of job.reports) ids.add(report.id);
    const earlier = [...this.#running].filter((group) => [...ids].some((id) => group.ids.has(id)));
    const done = (async () => {
      await Promise.allSettled(earlier.map((group) => group.done));
      return run(jobs);
    })();
    const entry = { ids, done };
    this.#running.add(entry);
    try {
      return await done;
    } finally {
      this.#running.delete(entry);
    }
  }
}
