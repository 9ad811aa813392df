import type pg from "pg";
import type {
  AcceptedReport,
  DroppedBatch,
  GroupCommitListener,
  StoredRound,
  StoreResult,
} from "../../api.js";
import { RoundClosedError, StorageError } from "../../errors.js";
import { GroupCommit } from "../../group-commit.js";
import { binaryInt4Array, binaryUuidArray, intArray } from "./arrays.js";
import { type PostgresDb, statement } from "./connection.js";
import { deltasCte, type Entry, type StoreJob, supportDeltas } from "./deltas.js";
import { type DropEntry, dropsCte, dropValues, groupDrops } from "./drops.js";
import type { DeltaFolder } from "./fold.js";
import { addCounter } from "./rounds.js";

/** Reports per group commit at most. */
const MAX_GROUP_REPORTS = 20_000;
/** SQLSTATE unique_violation: a group's plain `INSERT` met a stored id. */
const UNIQUE_VIOLATION = "23505";
/** Groups stored the careful way after one met a stored id. */
const CAREFUL_GROUPS = 16;

/**
 * A group none of whose ids is stored yet, in one statement (its own
 * transaction): `$1..$3` (round, id, view) of each report, `$4` the group's
 * rounds, `$5..$8` its support deltas ({@link deltasCte}), `$9, $10`
 * duplicates (round, count) within the group plus the dropped reports submitted,
 * `$11..$14` its dropped reports ({@link dropsCte}; those counted as dropped are
 * taken off the duplicates again). Closed rounds are skipped and
 * returned. The ids go in sorted by (round, id), so concurrent statements (also
 * of other processes) take keys in one order; a stored id fails the whole
 * statement (unique_violation). A named statement: parsed and planned once per connection.
 */
const FRESH_SQL = `WITH closed AS (
    SELECT coalesce(array_agg(round_no), '{}') AS nos FROM calm_round_state WHERE round_no = ANY($4::int[])),
  ins AS (INSERT INTO calm_reports (round_no, report_id, view)
    SELECT no, id, view FROM unnest($1::int[], $2::uuid[], $3::int[]) AS t(no, id, view)
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])) ORDER BY no, id),
  ${deltasCte(5)},
  ${dropsCte(11)},
  dup AS (INSERT INTO calm_counters (round_no, name, value)
    SELECT no, 'duplicates', sum(n) FROM (SELECT no, n FROM unnest($9::int[], $10::bigint[]) AS t(no, n)
      UNION ALL SELECT round_no, -count(*) FROM dropins GROUP BY round_no) AS d
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])) GROUP BY no HAVING sum(n) > 0
    ON CONFLICT (round_no, name) DO UPDATE SET value = calm_counters.value + excluded.value)
  SELECT nos AS closed FROM closed`;

type GroupResult = StoreResult | RoundClosedError;

/**
 * Storing report batches with group commit: `writers` queues (`GroupCommit`;
 * the batches that arrive while a writer's transaction runs share its next
 * one), a batch going to the writer with the fewest batches waiting. Each group
 * is one transaction: the primary key (round, report id) decides which reports
 * are new, the support is appended as deltas per round ({@link supportDeltas}),
 * folded later by the {@link DeltaFolder}.
 */
export class PostgresIngest {
  /** Group-commit queues, each with its own transaction at a time. */
  readonly #writers: { queue: GroupCommit<StoreJob, GroupResult>; waiting: number }[];
  /** Groups left to store the careful way (`#storeChecked`) since one met a stored id. */
  #carefulGroups = 0;

  constructor(
    readonly db: PostgresDb,
    readonly folder: DeltaFolder,
    writers: number,
  ) {
    this.#writers = Array.from({ length: writers }, () => ({
      queue: new GroupCommit<StoreJob, GroupResult>(
        (jobs) => this.#storeGroup(jobs),
        (job) => job.reports.length + (job.dropped?.reports.length ?? 0),
        MAX_GROUP_REPORTS,
      ),
      waiting: 0,
    }));
  }

  /**
   * Store a batch in the next group of the least busy writer, its `dropped`
   * reports counted in the same transaction ({@link dropsCte}); resolves after
   * its group's COMMIT.
   */
  async storeReports(
    round: StoredRound,
    reports: readonly AcceptedReport[],
    dropped?: DroppedBatch,
  ): Promise<StoreResult> {
    if (this.db.closed) throw new StorageError("PostgreSQL storage: closed");
    // The writer with the fewest batches waiting (an idle one starts a group at once).
    let writer = this.#writers[0]!;
    for (const other of this.#writers) if (other.waiting < writer.waiting) writer = other;
    writer.waiting++;
    let result: GroupResult;
    try {
      result = await writer.queue.submit(dropped ? { round, reports, dropped } : { round, reports });
    } finally {
      writer.waiting--;
    }
    if (result instanceof RoundClosedError) throw result;
    return result;
  }

  observe(listener: GroupCommitListener): void {
    for (const writer of this.#writers) writer.queue.observe(listener);
  }

  /** Resolves when every writer's queue is empty. */
  async idle(): Promise<void> {
    for (const writer of this.#writers) await writer.queue.idle();
  }

  /**
   * One group of batches (group commit), de-duplicated in submission order (the
   * first occurrence of a (round, id) wins; later ones in the group are
   * duplicates). Usually none of its ids is stored yet (duplicates come from
   * retries after a lost answer), so the group goes in with one statement in its
   * own transaction ({@link FRESH_SQL}, one round trip, one WAL flush): plain
   * `INSERT` of the ids (the key refuses any stored one: the statement fails with
   * unique_violation and nothing of it stays), the support counts added per
   * (round, view, cell), the group's own duplicates counted, closed rounds
   * skipped (their batches get `RoundClosedError`). If it fails on the key, the
   * group runs again the careful way ({@link #storeChecked}), and so do the next
   * {@link CAREFUL_GROUPS} groups (a client retrying sends more). Resolves (every
   * batch of the group) after COMMIT. O(reports x cells) work in JavaScript.
   */
  async #storeGroup(jobs: StoreJob[]): Promise<GroupResult[]> {
    const entries: Entry[] = [];
    const seen = new Map<number, Set<string>>();
    const kept = new Array<number>(jobs.length).fill(0);
    jobs.forEach((job, j) => {
      let ids = seen.get(job.round.no);
      if (ids === undefined) seen.set(job.round.no, (ids = new Set()));
      for (const report of job.reports) {
        if (ids.has(report.id)) continue;
        ids.add(report.id);
        entries.push({ job: j, round: job.round.no, report });
        kept[j]!++;
      }
    });
    if (this.#carefulGroups > 0) {
      this.#carefulGroups--;
      return this.#storeChecked(jobs, entries, groupDrops(jobs));
    }
    const drops = groupDrops(jobs);
    // Dropped reports submitted count as duplicates here; those counted as dropped are taken off in SQL.
    const duplicates = new Map<number, number>(drops.submitted);
    jobs.forEach((job, j) => {
      const dup = job.reports.length - kept[j]!;
      if (dup > 0) duplicates.set(job.round.no, (duplicates.get(job.round.no) ?? 0) + dup);
    });
    const deltas = supportDeltas(jobs, entries);
    const values = [
      binaryInt4Array(entries, (e) => e.round),
      binaryUuidArray(entries),
      binaryInt4Array(entries, (e) => e.report.view),
      intArray([...seen.keys()]),
      intArray(deltas.rounds),
      deltas.counts,
      intArray(deltas.first),
      intArray(deltas.last),
      intArray([...duplicates.keys()]),
      intArray([...duplicates.values()]),
      ...dropValues(drops.entries),
    ];
    let closedNos: number[];
    try {
      closedNos = (await statement(this.db.pool, { name: "calm_fresh_group", text: FRESH_SQL, values }))
        .rows[0].closed as number[];
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
        this.#carefulGroups = CAREFUL_GROUPS;
        return this.#storeChecked(jobs, entries, drops);
      }
      throw new StorageError(`PostgreSQL write failed: ${(error as Error).message}`);
    }
    const closed = new Set(closedNos.map(Number));
    const results = jobs.map(
      (job, j): GroupResult =>
        closed.has(job.round.no)
          ? new RoundClosedError(job.round.id)
          : { stored: kept[j]!, duplicates: job.reports.length - kept[j]! },
    );
    this.#wroteDeltas(jobs, results);
    return results;
  }

  /**
   * A group some of whose ids may be stored already, in one transaction: its
   * entries sorted by (round, id) (concurrent transactions lock keys in one
   * order) go in with `INSERT ... ON CONFLICT DO NOTHING RETURNING`, in one
   * statement that also skips closed rounds; the support counts of the new ones
   * follow; the dropped reports are counted ({@link countDrops}); duplicates are
   * counted per round. 4 + rounds statements, one WAL flush.
   */
  async #storeChecked(
    jobs: StoreJob[],
    entries: Entry[],
    drops: ReturnType<typeof groupDrops>,
  ): Promise<GroupResult[]> {
    const ordered = [...entries].sort((a, b) =>
      a.round !== b.round
        ? a.round - b.round
        : a.report.id < b.report.id
          ? -1
          : a.report.id > b.report.id
            ? 1
            : 0,
    );
    const roundNos = [...new Set(jobs.map((job) => job.round.no))];
    const results = await this.db.write(async (client) => {
      // One statement finds the closed rounds and inserts the new ids of the open ones.
      const inserted = await client.query(
        `WITH closed AS (
           SELECT coalesce(array_agg(round_no), '{}') AS nos FROM calm_round_state WHERE round_no = ANY($4::int[])),
         ins AS (INSERT INTO calm_reports (round_no, report_id, view)
           SELECT no, id, view FROM unnest($1::int[], $2::uuid[], $3::int[]) WITH ORDINALITY AS t(no, id, view, i)
           WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])) ORDER BY i
           ON CONFLICT DO NOTHING RETURNING round_no, report_id::text AS id)
         SELECT (SELECT nos FROM closed) AS closed, ARRAY(SELECT round_no || '/' || id FROM ins) AS keys`,
        [
          ordered.map((e) => e.round),
          ordered.map((e) => e.report.id),
          ordered.map((e) => e.report.view),
          roundNos,
        ],
      );
      const answer = inserted.rows[0] as { closed: number[]; keys: string[] };
      const closed = new Set(answer.closed.map(Number));
      const fresh = new Set(answer.keys);
      const stored = new Array<number>(jobs.length).fill(0);
      const storedEntries = ordered.filter((entry) => fresh.has(`${entry.round}/${entry.report.id}`));
      for (const entry of storedEntries) stored[entry.job]!++;
      const deltas = supportDeltas(jobs, storedEntries);
      if (deltas.rounds.length > 0)
        await client.query(`WITH closed AS (SELECT '{}'::int[] AS nos), ${deltasCte(1)} SELECT 1`, [
          intArray(deltas.rounds),
          deltas.counts,
          intArray(deltas.first),
          intArray(deltas.last),
        ]);
      const duplicates = await countDrops(client, drops, closed);
      const results = jobs.map((job, j): GroupResult => {
        if (closed.has(job.round.no)) return new RoundClosedError(job.round.id);
        const dup = job.reports.length - stored[j]!;
        if (dup > 0) duplicates.set(job.round.no, (duplicates.get(job.round.no) ?? 0) + dup);
        return { stored: stored[j]!, duplicates: dup };
      });
      for (const [no, amount] of duplicates) await addCounter(client, no, "duplicates", amount);
      return results;
    });
    this.#wroteDeltas(jobs, results);
    return results;
  }

  /** After a group committed (`results`, one per job): tell the folder the open rounds it wrote deltas of. */
  #wroteDeltas(jobs: readonly StoreJob[], results: readonly GroupResult[]): void {
    this.folder.wrote(
      jobs.filter((_, j) => !(results[j] instanceof RoundClosedError)).map((job) => job.round),
    );
  }
}

/**
 * The careful path's dropped reports ({@link groupDrops}) counted in the caller's
 * transaction ({@link dropsCte}), closed rounds skipped; resolves with, per open
 * round, its dropped reports submitted but not counted (re-sent: duplicates).
 * One statement when any was dropped.
 */
async function countDrops(
  client: pg.PoolClient,
  drops: { entries: DropEntry[]; submitted: Map<number, number> },
  closed: ReadonlySet<number>,
): Promise<Map<number, number>> {
  const duplicates = new Map<number, number>();
  if (drops.entries.length === 0) return duplicates;
  const counted = await client.query({
    text: `WITH closed AS (SELECT $5::int[] AS nos), ${dropsCte(1)}
           SELECT round_no, count(*)::int FROM dropins GROUP BY round_no`,
    values: [...dropValues(drops.entries), intArray([...closed])],
    rowMode: "array",
  });
  const fresh = new Map(counted.rows.map(([no, n]) => [Number(no), Number(n)]));
  for (const [no, submitted] of drops.submitted)
    if (!closed.has(no) && submitted > (fresh.get(no) ?? 0))
      duplicates.set(no, submitted - (fresh.get(no) ?? 0));
  return duplicates;
}
