import type { CalmPlan } from "@calm-ldp/calm-core";
import {
  type BatchAcknowledgement,
  CollectorResponseError,
  createReport,
  fetchPlan,
  type PlanResponse,
  sendReports,
  type WireReport,
} from "@calm-ldp/client";
import { CannotRunError } from "@calm-ldp/errors";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { cryptoRng, type Rng } from "@calm-ldp/random";
import { InvalidParameterError } from "./errors.js";

/** Options of {@link simulateUsers}. */
export interface SimulateUsersOptions {
  /** Collector base URL, or several: batch i goes to `urls[i mod urls.length]`. */
  readonly url: string | readonly string[];
  readonly round: string;
  readonly plan: CalmPlan;
  /** One simulated user per record. */
  readonly records: RecordStore;
  /** Batches in flight at once (default 8). */
  readonly concurrency?: number;
  /** Users per POST, as a relay batching its users' reports would send them (default 100). */
  readonly batchSize?: number;
  /** Random source of the perturbations and report ids (default: the cryptographic generator). */
  readonly rng?: Rng;
  /**
   * How long one batch keeps retrying, with the same report ids, while the
   * collector is unreachable or answers 5xx (default 60,000 ms); after that the
   * batch counts as unacknowledged.
   */
  readonly retryForMs?: number;
  /** Time limit of one HTTP attempt (default 10,000 ms). */
  readonly attemptTimeoutMs?: number;
  /**
   * How one user makes her report (default: `createReport` with `rng`); e.g. a
   * protected round's users obtain a token and spend it (`tokenUsers` in attacks/).
   */
  readonly reportFor?: (record: readonly number[], user: number) => WireReport | Promise<WireReport>;
  /** Called with every acknowledged batch (the exact reports the collector stored or had stored). */
  readonly onAcknowledged?: (reports: readonly WireReport[], ack: BatchAcknowledgement) => void;
  /** Called when a batch is refused (4xx): the reports and the collector's reason. */
  readonly onRejected?: (reports: readonly WireReport[], reason: string) => void;
}

/** What {@link simulateUsers} measured. */
export interface SimulateUsersResult {
  readonly users: number;
  /** Reports the collector acknowledged (stored now or earlier). */
  readonly acknowledged: number;
  /** Of those, reports the collector had already stored (a retry after a lost answer). */
  readonly duplicates: number;
  /** Reports in batches the collector refused (4xx), by reason. */
  readonly rejected: number;
  readonly rejectedReasons: Readonly<Record<string, number>>;
  /** Reports in batches that gave up after `retryForMs` without an answer. */
  readonly unacknowledged: number;
  /** HTTP attempts that failed and were retried. */
  readonly retries: number;
  readonly seconds: number;
  /** acknowledged / seconds. */
  readonly reportsPerSecond: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How one call of {@link retrying} ended. */
type Attempted<T> =
  | { readonly ok: true; readonly value: T; readonly retries: number }
  | { readonly ok: false; readonly refused: CollectorResponseError; readonly retries: number }
  | { readonly ok: false; readonly lastError: unknown; readonly retries: number; readonly seconds: number };

/**
 * Call `attempt` until it succeeds, the collector refuses (a 4xx answer: final),
 * or `retryForMs` have passed since the first failure; a network error, a
 * timeout or a 5xx answer (e.g. 503 `storage-unavailable`) is retried with
 * exponential backoff, 50 ms doubling to 1 s. Bounded: at most about
 * retryForMs / 50 ms + log2(20) attempts.
 */
async function retrying<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  retryForMs: number,
  attemptTimeoutMs: number,
): Promise<Attempted<T>> {
  let firstFailure = 0;
  let retries = 0;
  for (let delay = 50; ; delay = Math.min(1000, delay * 2)) {
    try {
      return { ok: true, value: await attempt(AbortSignal.timeout(attemptTimeoutMs)), retries };
    } catch (error) {
      if (error instanceof CollectorResponseError && error.status >= 400 && error.status < 500)
        return { ok: false, refused: error, retries };
      const now = performance.now();
      if (firstFailure === 0) firstFailure = now;
      if (now - firstFailure >= retryForMs)
        return { ok: false, lastError: error, retries, seconds: (now - firstFailure) / 1000 };
      retries++;
      await sleep(Math.min(delay, retryForMs - (now - firstFailure)));
    }
  }
}

/** Options of {@link fetchRoundPlan}. */
export interface FetchRoundPlanOptions {
  /** How long to keep retrying while the collector is unreachable or answers 5xx (default 60,000 ms). */
  readonly retryForMs?: number;
  /** Time limit of one HTTP attempt (default 10,000 ms). */
  readonly attemptTimeoutMs?: number;
}

/**
 * `GET <url>/v1/rounds/<round>/plan` (client `fetchPlan`, plan checked with
 * `readPlan`), retried like {@link simulateUsers} retries a batch: a network
 * error, a timeout or a 5xx answer is retried with exponential backoff (50 ms
 * doubling to 1 s) for up to `retryForMs`; a 4xx answer (e.g. 404
 * `round-not-found`) is final. Throws `CollectorResponseError` on a refusal and
 * `CannotRunError` naming the collector, the attempts and the last error when the
 * time is up. Resolves with the plan response and how many attempts were retried.
 */
export async function fetchRoundPlan(
  url: string,
  round: string,
  options: FetchRoundPlanOptions = {},
): Promise<PlanResponse & { plan: CalmPlan; retries: number }> {
  const outcome = await retrying(
    (signal) => fetchPlan(url, round, { signal }),
    options.retryForMs ?? 60_000,
    options.attemptTimeoutMs ?? 10_000,
  );
  if (outcome.ok) return { ...outcome.value, retries: outcome.retries };
  if ("refused" in outcome) throw outcome.refused;
  const last = outcome.lastError as Error & { cause?: { code?: string; message?: string } };
  const detail = [last.message, last.cause?.code ?? last.cause?.message].filter(Boolean).join(": ");
  throw new CannotRunError(
    `cannot fetch the plan of round ${round} from ${url}: gave up after ${outcome.retries + 1} attempts over ${outcome.seconds.toFixed(1)} s; last error: ${detail}`,
  );
}

/**
 * Simulated users reporting to a collector over real HTTP: every record becomes
 * one user who perturbs it on "her device" with @calm-ldp/client (`createReport`:
 * calm-core's sampler, a fresh random report id) and whose report is POSTed in
 * batches of `batchSize` by `concurrency` concurrent senders. A batch that meets
 * a network error or a 5xx is retried with the same reports (same ids) with
 * exponential backoff (50 ms doubling to 1 s) for up to `retryForMs`, so the
 * collector counts each user once even when an answer was lost; a 4xx refusal is
 * final. The loop is bounded: every batch ends acknowledged, refused or given up.
 * O(n) perturbations plus n / batchSize requests.
 */
export async function simulateUsers(options: SimulateUsersOptions): Promise<SimulateUsersResult> {
  const urls = typeof options.url === "string" ? [options.url] : [...options.url];
  const concurrency = options.concurrency ?? 8;
  const batchSize = options.batchSize ?? 100;
  const retryForMs = options.retryForMs ?? 60_000;
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 10_000;
  if (urls.length === 0)
    throw new InvalidParameterError("simulateUsers: url must name at least one collector");
  for (const [name, value] of [
    ["concurrency", concurrency],
    ["batchSize", batchSize],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new InvalidParameterError(`simulateUsers: ${name} must be an integer >= 1 (got ${value})`);
  }
  const rng = options.rng ?? cryptoRng();
  const { plan, records } = options;
  const users = records.size;
  const batches = Math.ceil(users / batchSize);
  const d = records.columns.length;
  let next = 0;
  // The result's counts, added to as the batches end.
  const tally = {
    users,
    acknowledged: 0,
    duplicates: 0,
    rejected: 0,
    rejectedReasons: {} as Record<string, number>,
    unacknowledged: 0,
    retries: 0,
  };
  const started = performance.now();

  const reportFor = options.reportFor ?? ((record: readonly number[]) => createReport(plan, record, { rng }));
  const makeBatch = async (index: number): Promise<WireReport[]> => {
    const reports: Promise<WireReport>[] = [];
    for (let r = index * batchSize, end = Math.min(users, r + batchSize); r < end; r++) {
      const record = new Array<number>(d);
      for (let a = 0; a < d; a++) record[a] = records.columns[a]![r]!;
      reports.push(Promise.resolve(reportFor(record, r)));
    }
    return Promise.all(reports);
  };

  const sendOne = async (index: number): Promise<void> => {
    const reports = await makeBatch(index);
    const url = urls[index % urls.length]!;
    const outcome = await retrying(
      (signal) => sendReports(url, options.round, reports, { signal }),
      retryForMs,
      attemptTimeoutMs,
    );
    tally.retries += outcome.retries;
    if (outcome.ok) {
      tally.acknowledged += outcome.value.acknowledged;
      tally.duplicates += outcome.value.duplicates;
      options.onAcknowledged?.(reports, outcome.value);
    } else if ("refused" in outcome) {
      const { reason } = outcome.refused;
      tally.rejected += reports.length;
      tally.rejectedReasons[reason] = (tally.rejectedReasons[reason] ?? 0) + reports.length;
      options.onRejected?.(reports, reason);
    } else {
      tally.unacknowledged += reports.length;
    }
  };

  const sender = async (): Promise<void> => {
    while (next < batches) await sendOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, batches) }, sender));
  const seconds = (performance.now() - started) / 1000;
  return { ...tally, seconds, reportsPerSecond: seconds > 0 ? tally.acknowledged / seconds : 0 };
}
