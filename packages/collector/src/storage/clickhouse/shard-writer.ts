import type { AcceptedReport, GroupCommitListener, StoredRound, StoreResult } from "../../api.js";
import { uuidWords } from "../../uuid-set.js";
import type { HeldIds } from "./held-ids.js";
import type { ShardHttp } from "./http.js";
import { reportRowsBinary, uuidsBinary } from "./rowbinary.js";
import { writeOffCopies } from "./write-offs.js";

/** `force`: store even if the shard has the round closed (the rest of the batch was stored). */
export type Job = { round: StoredRound; reports: readonly AcceptedReport[]; force?: boolean };
/** What a job of a closed round returns (storeReports throws RoundClosedError). */
export const CLOSED = Symbol("closed");
export type JobResult = StoreResult | typeof CLOSED;

type Entry = { job: Job; resolve: (result: JobResult) => void; reject: (error: unknown) => void };

/** Reports of some jobs with their ids as words (four per report), and each job's range of them. */
interface Picked {
  reports: AcceptedReport[];
  words: Uint32Array;
  first: number[];
  count: number[];
}

/** A round's jobs of one group whose new reports (`fresh`) are inserted, awaiting the check for copies. */
interface Inserted {
  no: number;
  entries: Entry[];
  fresh: Picked;
  /** The group's reports (all its jobs') and when its step began (`performance.now()`), for metrics. */
  size: number;
  started: number;
  /** A block number read before the group's lookup: its check reads only parts holding a later block. */
  since: number;
}

/**
 * Gathering (see {@link ShardWriter}): a group waits for as many jobs as were
 * in flight at the previous group's answer (its own and those queued
 * meanwhile), at most this share of the previous group's duration and at most
 * `GATHER_MS` after that answer (so a lone request after a quiet spell never
 * waits, and a client that stops costs one such wait).
 */
const GATHER_SHARE = 1;
const GATHER_MS = 50;

/**
 * The writer of one shard in one process: jobs queue while a group is in
 * flight and go as one group (at most `maxGroupReports` reports), per round in
 * the group three round trips, the group answered after the third:
 * (1) one query reads whether the round is closed on the shard and which of
 *     the group's ids not in `held` (ids this process knows the shard holds)
 *     the shard holds (ids as binary external data);
 * (2) one `RowBinary` insert writes the new reports (their counts through the
 *     materialized view in the same statement), added to `held` first and
 *     taken out again if it fails;
 * (3) one query reads which of the inserted ids the shard now holds in more
 *     than one row (another collector inserting the same new id between this
 *     group's (1) and (2)), written off (`writeOffCopies`) before the answer,
 * so "stored" is answered only after the rows and their exact counts are in.
 * Each group is answered by its own check, so a request waits for one group,
 * and the requests it answers come back to the next one: with j jobs in flight
 * at an answer (the group's and those queued meanwhile) the chain waits
 * (`GATHER_SHARE`, `GATHER_MS`) until j jobs queue, so under a steady load every
 * request in flight on the shard goes into one group (one lookup, one insert,
 * one check for all of them), not two or three, and the shards' groups line
 * up (each waits for the requests the other still holds).
 * With `pipeline` > 1, that many such chains run at once, jobs dealt in turn; a
 * group sharing an id with an earlier group of another chain waits for that
 * group's insert before its own (1), so within one process `stored` and
 * `duplicates` stay exact. Waits go only to earlier inserts, which wait for
 * nothing later, so none can deadlock. Cost per group and round: 3 round trips,
 * 16 bytes per new id in (1) and (3), ~30 + 4 x cells bytes per new report in
 * (2); ids in `held` cost a hash probe and no I/O. On the shard, (1) and (3)
 * each read for g ids min(g granules, the round's rows) of `calm_reports`
 * (`REPORT_GRANULE` rows each), and (2) writes two parts (the rows, their
 * counts), each merged again later.
 */
export class ShardWriter {
  readonly #chains: ShardChain[];
  readonly #listeners: GroupCommitListener[] = [];
  #turn = 0;

  constructor(
    shard: ShardHttp,
    db: string,
    held: HeldIds,
    options: {
      pipeline: number;
      maxGroupReports: number;
      failure: (error: unknown) => unknown;
      /** At most this many ms of gathering (default `GATHER_MS`; 0: none). */
      gatherMs?: number;
    },
  ) {
    const order = options.pipeline > 1 ? new InsertOrder() : undefined;
    const limits = { maxGroupReports: options.maxGroupReports, gatherMs: options.gatherMs ?? GATHER_MS };
    this.#chains = Array.from(
      { length: options.pipeline },
      () => new ShardChain(shard, db, held, order, limits, options.failure, this.#listeners),
    );
  }

  /** Call `listener` once per group of this shard when it is answered (its reports, duration, outcome; metrics). */
  observe(listener: GroupCommitListener): void {
    this.#listeners.push(listener);
  }

  submit(job: Job): Promise<JobResult> {
    this.#turn = (this.#turn + 1) % this.#chains.length;
    return this.#chains[this.#turn]!.submit(job);
  }

  async idle(): Promise<void> {
    await Promise.all(this.#chains.map((chain) => chain.idle()));
  }
}

/** Groups in flight in several chains of one shard: a group waits for earlier inserts of its ids. O(ids x groups). */
class InsertOrder {
  readonly #running = new Set<{ ids: Set<string>; inserted: Promise<void> }>();

  /** Waits for earlier groups sharing an id with `jobs`; the answer marks this group's insert settled. */
  async enter(jobs: readonly Job[]): Promise<() => void> {
    const ids = new Set<string>();
    for (const job of jobs) for (const report of job.reports) ids.add(report.id);
    const earlier = [...this.#running].filter((group) => [...ids].some((id) => group.ids.has(id)));
    let settle = () => {};
    const entry = { ids, inserted: new Promise<void>((resolve) => (settle = resolve)) };
    this.#running.add(entry);
    await Promise.all(earlier.map((group) => group.inserted));
    return () => {
      this.#running.delete(entry);
      settle();
    };
  }
}

class ShardChain {
  #waiting: Entry[] = [];
  #running: Promise<void> | undefined;
  /** The last group: its jobs and those queued at its answer, when it was answered and how long it took (ms). */
  #last = { jobs: 0, answered: Number.NEGATIVE_INFINITY, ms: 0 };
  /** Wakes a gathering wait once `#want` jobs queue. */
  #wake: (() => void) | undefined;
  #want = 0;
  /**
   * The table's highest block number, read by this chain's last check (0: none
   * yet), so before any later lookup of this chain: every part written after
   * that read holds a higher block (see {@link ShardChain.#check}).
   */
  #since = 0;

  constructor(
    readonly shard: ShardHttp,
    readonly db: string,
    readonly held: HeldIds,
    readonly order: InsertOrder | undefined,
    readonly limits: { readonly maxGroupReports: number; readonly gatherMs: number },
    readonly failure: (error: unknown) => unknown,
    readonly listeners: readonly GroupCommitListener[],
  ) {}

  /** Tells the listeners that a group of `size` reports (`rows` inserted) begun at `started` was answered. */
  #observed(size: number, started: number, failed: boolean, rows = 0): void {
    const ms = performance.now() - started;
    for (const listener of this.listeners) listener({ size, seconds: ms / 1000, failed, rows });
  }

  submit(job: Job): Promise<JobResult> {
    return new Promise<JobResult>((resolve, reject) => {
      this.#waiting.push({ job, resolve, reject });
      if (this.#wake && this.#waiting.length >= this.#want) this.#wake();
      this.#running ??= this.#drain();
    });
  }

  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    // Let requests that arrive in the same tick join the first group.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#waiting.length > 0) {
      await this.#gather();
      this.held.trim();
      const started = performance.now();
      let jobs = 0;
      for (const [no, entries] of byRound(this.#take())) {
        jobs += entries.length;
        await this.#step(no, entries).catch((error: unknown) => {
          for (const entry of entries) entry.reject(this.failure(error));
        });
      }
      // In flight on this shard: the group's jobs and those that queued meanwhile.
      this.#last = {
        jobs: jobs + this.#waiting.length,
        answered: performance.now(),
        ms: performance.now() - started,
      };
    }
    this.#running = undefined;
  }

  /**
   * Waits until as many jobs queue as were in flight at the last answer (its
   * requests coming back), until `GATHER_SHARE` of the last group's duration
   * and at most `GATHER_MS` have passed since that answer (no wait after that).
   */
  async #gather(): Promise<void> {
    const since = performance.now() - this.#last.answered;
    const ms = Math.min(GATHER_SHARE * this.#last.ms, this.limits.gatherMs) - since;
    if (ms <= 0 || this.#waiting.length >= this.#last.jobs) return;
    this.#want = this.#last.jobs;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.#wake?.(), ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }

  /** The longest prefix of the waiting jobs within `maxGroupReports` reports (at least one job). */
  #take(): Entry[] {
    let weight = 0;
    let take = 0;
    while (take < this.#waiting.length) {
      const next = this.#waiting[take]!.job.reports.length;
      if (take > 0 && weight + next > this.limits.maxGroupReports) break;
      weight += next;
      take++;
    }
    return this.#waiting.splice(0, take);
  }

  /** One round's jobs of a group: (1) closed and held; (2) the insert; (3) the check for copies, then the answer. */
  async #step(no: number, entries: Entry[]): Promise<void> {
    const started = performance.now();
    const since = this.#since;
    let size = 0;
    for (const entry of entries) size += entry.job.reports.length;
    const inserted = this.order ? await this.order.enter(entries.map((e) => e.job)) : () => {};
    const failed = (picked: Picked, jobs: readonly Entry[], error: unknown) => {
      unpick(no, picked, this.held);
      for (const entry of jobs) entry.reject(this.failure(error));
      this.#observed(size, started, true);
    };
    let candidates: Picked;
    try {
      candidates = pick(no, entries, this.held);
    } catch (error) {
      // pick throws on a non-UUID id (storage checks them first): nothing inserted, nobody waits.
      inserted();
      throw error;
    }
    let answer: string[][];
    try {
      answer = await this.shard.queryWithIds(
        `SELECT toString(report_id), count() FROM ${this.db}.calm_reports
         WHERE round_no = ${no} AND report_id IN ids GROUP BY report_id
         UNION ALL SELECT 'closed', toUInt64(0) FROM ${this.db}.calm_round_state
         WHERE round_no = ${no} LIMIT 1`,
        { ids: uuidsBinary(candidates.words, candidates.reports.length) },
      );
    } catch (error) {
      inserted();
      failed(candidates, entries, error);
      return;
    }
    let closed = false;
    const stale: string[] = [];
    const onShard = new Set<string>();
    for (const [id, rows] of answer) {
      if (id === "closed") closed = true;
      else {
        onShard.add(id!);
        // Held in several rows already: a racer died before its check (this retry writes the copy off).
        if (Number(rows) > 1) stale.push(id!);
      }
    }
    try {
      if (stale.length > 0) await writeOffCopies(this.shard, this.db, no, stale);
    } catch (error) {
      inserted();
      failed(candidates, entries, error);
      return;
    }
    const open = closed ? entries.filter((entry) => entry.job.force) : entries;
    if (closed) {
      this.held.forget(no);
      for (const entry of entries) if (!entry.job.force) entry.resolve(CLOSED);
    }
    const fresh =
      onShard.size > 0 || open !== entries ? repick(candidates, entries, open, onShard) : candidates;
    try {
      if (fresh.reports.length > 0)
        await this.shard.insertBinary(
          `${this.db}.calm_reports`,
          reportRowsBinary(no, fresh.reports, fresh.words),
        );
    } catch (error) {
      failed(fresh, open, error);
      return;
    } finally {
      inserted();
    }
    await this.#check({ no, entries: open, fresh, size, started, since });
  }

  /**
   * (3): the inserted ids the shard holds in several rows (a racing collector's
   * copies), then the answer. A copy that matters was inserted after this
   * group's lookup (one before it, the lookup saw, and the id was not
   * inserted), so it is in a part holding a block numbered above `since` (read
   * before that lookup; MergeTree numbers the blocks of a table in commit
   * order, and a merged part holds the highest block of its sources): only
   * those parts are read (`_part` is `all_<min block>_<max block>_<level>`,
   * one partition), the round's older parts not at all. The same query reads
   * the table's highest block for this chain's next group.
   */
  async #check(group: Inserted): Promise<void> {
    const copies: string[] = [];
    try {
      if (group.fresh.reports.length > 0) {
        const answer = await this.shard.queryWithIds(
          `SELECT 'copy', toString(report_id) FROM ${this.db}.calm_reports
           WHERE round_no = ${group.no} AND report_id IN done
             AND toUInt64(splitByChar('_', _part)[3]) > ${group.since}
           GROUP BY report_id HAVING count() > 1
           UNION ALL SELECT 'block', toString(max(max_block_number)) FROM system.parts
           WHERE database = '${this.db}' AND table = 'calm_reports'`,
          { done: uuidsBinary(group.fresh.words, group.fresh.reports.length) },
        );
        for (const [kind, value] of answer) {
          if (kind === "copy") copies.push(value!);
          else if (kind === "block") this.#since = Math.max(this.#since, Number(value));
        }
      }
    } catch (error) {
      this.#fail(group, error);
      return;
    }
    await this.#settle(group, copies);
  }

  /** Writes `copies` off and answers the group: its new reports stored but those copies, the rest duplicates. */
  async #settle(group: Inserted, copies: readonly string[]): Promise<void> {
    const { no, entries, fresh } = group;
    try {
      if (copies.length > 0) await writeOffCopies(this.shard, this.db, no, copies);
      const copied = new Set(copies);
      let duplicates = 0;
      const results = entries.map((entry, j) => {
        let stored = fresh.count[j]!;
        if (copied.size > 0)
          for (let i = fresh.first[j]!; i < fresh.first[j]! + fresh.count[j]!; i++)
            if (copied.has(fresh.reports[i]!.id)) stored--;
        duplicates += entry.job.reports.length - stored;
        return { stored, duplicates: entry.job.reports.length - stored };
      });
      if (duplicates > 0)
        await this.shard.query(
          `INSERT INTO ${this.db}.calm_counters VALUES (${no}, 'duplicates', ${duplicates})`,
        );
      entries.forEach((entry, j) => {
        entry.resolve(results[j]!);
      });
      this.#observed(group.size, group.started, false, fresh.reports.length);
    } catch (error) {
      this.#fail(group, error);
    }
  }

  /** The group's check or answer failed: its ids leave `held` (a retry inserts and checks them again). */
  #fail(group: Inserted, error: unknown): void {
    unpick(group.no, group.fresh, this.held);
    for (const entry of group.entries) entry.reject(this.failure(error));
    this.#observed(group.size, group.started, true);
  }
}

/** The entries per round, in order of first appearance. */
function byRound(entries: readonly Entry[]): Map<number, Entry[]> {
  const rounds = new Map<number, Entry[]>();
  for (const entry of entries) {
    const list = rounds.get(entry.job.round.no);
    if (list) list.push(entry);
    else rounds.set(entry.job.round.no, [entry]);
  }
  return rounds;
}

/**
 * The reports of `entries` (round `no`) whose ids `held` did not hold, each
 * added to it (so an id repeated within the group is taken once), in job order,
 * with their ids as words (see `uuidWords`, which throws on a non-UUID). O(reports).
 */
function pick(no: number, entries: readonly Entry[], held: HeldIds): Picked {
  let total = 0;
  for (const entry of entries) total += entry.job.reports.length;
  const words = new Uint32Array(4 * total);
  const picked: Picked = { reports: [], words, first: [], count: [] };
  try {
    pickInto(no, entries, held, picked);
  } catch (error) {
    unpick(no, picked, held);
    throw error;
  }
  return picked;
}

function pickInto(no: number, entries: readonly Entry[], held: HeldIds, picked: Picked): void {
  const words = picked.words;
  for (const entry of entries) {
    picked.first.push(picked.reports.length);
    let taken = 0;
    for (const report of entry.job.reports) {
      const at = 4 * picked.reports.length;
      uuidWords(report.id, words, at);
      if (!held.add(no, words, at)) continue;
      picked.reports.push(report);
      taken++;
    }
    picked.count.push(taken);
  }
}

/** Of `picked` (ranges per `all` entry), those of the `open` entries whose ids the shard did not hold. O(picked). */
function repick(picked: Picked, all: readonly Entry[], open: readonly Entry[], onShard: Set<string>): Picked {
  const words = new Uint32Array(picked.words.length);
  const out: Picked = { reports: [], words, first: [], count: [] };
  for (const entry of open) {
    const j = all.indexOf(entry);
    out.first.push(out.reports.length);
    let taken = 0;
    for (let i = picked.first[j]!; i < picked.first[j]! + picked.count[j]!; i++) {
      const report = picked.reports[i]!;
      if (onShard.has(report.id)) continue;
      words.set(picked.words.subarray(4 * i, 4 * i + 4), 4 * out.reports.length);
      out.reports.push(report);
      taken++;
    }
    out.count.push(taken);
  }
  return out;
}

/** Takes `picked`'s ids out of `held` (their insert failed or was not checked). */
function unpick(no: number, picked: Picked, held: HeldIds): void {
  for (let i = 0; i < picked.reports.length; i++) held.delete(no, picked.words, 4 * i);
}
