import type { CalmPlan } from "@calm-ldp/calm-core";
import type { Rng } from "@calm-ldp/random";

/**
 * Version of the report wire format below. It changes only when the meaning of a
 * field changes; the collector refuses other versions.
 */
export const WIRE_FORMAT_VERSION = 1;

/**
 * One report on the wire (JSON), as the collector validates it:
 * - `id`: the client-chosen report id, a lower-case UUID (128 bits; see
 *   {@link createReportId}). A report id seen before is not counted twice, so a
 *   client retries with the same id.
 * - `view`: the user's group (index into `plan.views`).
 * - GRR views: `value`, the reported cell, an integer in [0, cells).
 * - Unary views (OUE, SUE): `bits`, standard base64 (with `=` padding) of the
 *   bitset's `ceil(cells / 8)` bytes, little-endian: bit x is bit `x & 7` of byte
 *   `x >> 3`; bits at or beyond `cells` are zero. Canonical: exactly one text per
 *   report.
 * Exactly one of `value` and `bits`, the one of the view's oracle.
 */
export interface WireReport {
  readonly id: string;
  readonly view: number;
  readonly value?: number;
  readonly bits?: string;
}

/** The body of `POST /v1/rounds/:id/reports`: the round the reports were made for, and the reports. */
export interface ReportBatchBody {
  readonly round: string;
  readonly reports: readonly WireReport[];
}

/** The body of `GET /v1/rounds/:id/plan`: what a client needs. */
export interface PlanResponse {
  readonly round: string;
  /** Report wire format version the collector reads ({@link WIRE_FORMAT_VERSION}). */
  readonly wireFormat: number;
  /** Largest number of reports per POST. */
  readonly maxBatch: number;
  /**
   * When the round was closed (ISO time; it then refuses reports with 409
   * `round-closed`), or null while it is open. Absent from collectors before it.
   */
  readonly closedAt?: string | null;
  readonly plan: CalmPlan;
}

/** `GET /v1/campaigns/:id/current`: the campaign's open round and the plan every round of it shares. */
export interface CampaignRoundResponse extends PlanResponse {
  readonly campaign: string;
  /** The round's number in the campaign (0, 1, ...). */
  readonly index: number;
  readonly openedAt: string;
  /** When the schedule closes it (ISO time), or null when the admin closes rounds. */
  readonly closesAt: string | null;
  /** The campaign's instantaneous layer eps (pass it to createReporter), or null. */
  readonly instantEps: number | null;
}

/** The collector's answer to an accepted batch (HTTP 200, sent only after the reports are durably stored). */
export interface BatchAcknowledgement {
  /** Reports in the batch (all acknowledged). */
  readonly acknowledged: number;
  /** Reports stored for the first time. */
  readonly stored: number;
  /** Reports whose id was seen before (stored earlier, not counted again). */
  readonly duplicates: number;
}

/** Options of {@link createReport}. */
export interface CreateReportOptions {
  /** Random source of the perturbation and the report id (default: the platform's cryptographic generator). */
  readonly rng?: Rng;
  /** Report id (default: a fresh random version-4 UUID, `createReportId`, its bits from `rng`). Retries reuse the id. */
  readonly id?: string;
  /** The group the collector assigned (plans with `assignment: "assigned"` only). */
  readonly view?: number;
  /**
   * Round ids kept to refuse a second report in one round (default 32): the latest
   * ones reported, plus those of queued reports; older ids are pruned so the state
   * stays small. Keep it above the number of rounds that can be open at once.
   */
  readonly keepRoundIds?: number;
}

/** Options of the HTTP helpers: a `fetch` to use instead of the global one, and an abort signal. */
export interface HttpOptions {
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}

/**
 * Where a {@link createReporter} keeps its state between starts: a string per key.
 * `read` resolves `undefined` for a key never written. Both reject when the
 * storage is unavailable or full; the reporter then throws `ReporterError`
 * ("storage") and changes nothing. Adapters: `memoryStorage`,
 * `localStorageStorage`, `indexedDbStorage`, and `fileStorage` from
 * `@calm-ldp/client/node`.
 */
export interface ReporterStorage {
  read(key: string): Promise<string | undefined>;
  write(key: string, value: string): Promise<void>;
}

/** Options of {@link createReporter}. */
export interface ReporterOptions {
  /** The campaign's plan (one plan for every round of the campaign). */
  readonly plan: CalmPlan;
  /** Where the state (group, memoized responses, ledger, offline queue) is kept. */
  readonly storage: ReporterStorage;
  /** The most eps this device may spend in the campaign; a report needing more throws `ReporterError` ("budget"). */
  readonly maxEps: number;
  /** Eps of the instantaneous layer (fresh randomization of the memoized response per report); absent: reports re-send the memoized response. */
  readonly instantEps?: number;
  /** The campaign's id: the state's key (default "default"). */
  readonly campaign?: string;
  /**
   * Delivers reports of one round, resolving once the collector stored them
   * (e.g. `(round, reports) => sendReports(url, round, reports)`). Absent:
   * reports stay pending until a reporter with `send` flushes them.
   */
  readonly send?: (round: string, reports: readonly WireReport[]) => Promise<unknown>;
  /** Random source (default: the platform's cryptographic generator). */
  readonly rng?: Rng;
  /** The group the collector assigned (plans with `assignment: "assigned"` only). */
  readonly view?: number;
  /**
   * Round ids kept to refuse a second report in one round (default 32): the latest
   * ones reported, plus those of queued reports; older ids are pruned so the state
   * stays small. Keep it above the number of rounds that can be open at once.
   */
  readonly keepRoundIds?: number;
  /**
   * How report ids are made (default "random": `createReportId`, version 4, 122
   * random bits from `rng`, nothing about the device). "time-ordered":
   * `createTimeOrderedReportId`, version 7 with the device's clock in
   * milliseconds, which against the arrival time tells the collector the device's
   * clock offset, a stable fingerprint that links its reports across rounds (see
   * the README's "Report ids"); opt in only where reports are linked anyway. Or a
   * function `(rng) => id` (called once per report; the id must be a lower-case
   * UUID, else the report throws `WireFormatError`).
   */
  readonly reportIds?: "random" | "time-ordered" | ((rng: Rng) => string);
}

/** A report waiting for the collector's acknowledgement, kept across restarts and retried with the same id. */
export interface PendingReport {
  readonly round: string;
  readonly report: WireReport;
}

/**
 * How the state was found when the reporter started: "new" (none stored),
 * "restored", or started fresh because the stored state was "corrupt" (bad
 * format, version or checksum) or "foreign" (another campaign or plan).
 */
export type ReporterStart = "new" | "restored" | "corrupt" | "foreign";

/** What the device has spent in the campaign (see {@link Reporter.ledger}). */
export interface ReporterLedger {
  readonly campaign: string;
  /** Eps spent: plan eps x distinct (view, cell) values memoized. */
  readonly eps: number;
  readonly maxEps: number;
  /** The plan's eps, spent once per memoized value. */
  readonly planEps: number;
  /** Distinct (view, cell) values with a memoized permanent response. */
  readonly memoized: number;
  /** The user's group (undefined before the first report). */
  readonly view: number | undefined;
  /** Rounds reported in. */
  readonly rounds: number;
  /**
   * What one report alone reveals (its exact worst log-ratio): the plan eps, or
   * with the instantaneous layer the composed mechanism's (smaller). Any number of
   * reports of one memoized value together reveal at most `planEps`: the layer is
   * post-processing and is not charged to the ledger.
   */
  readonly reportEps: number;
  readonly start: ReporterStart;
}

/** The outcome of delivering pending reports. */
export interface FlushResult {
  /** Reports the collector acknowledged (removed from the queue). */
  readonly sent: number;
  /** Reports still pending (the collector could not be reached or failed). */
  readonly pending: number;
  /** Reports the collector refused for good (4xx: closed round, unknown campaign, ...), removed from the queue. */
  readonly refused: readonly (PendingReport & { readonly reason: string; readonly status: number })[];
}

/** A persistent reporter ({@link createReporter}). */
export interface Reporter {
  /**
   * Report `record` for round `round`: the memoized response (drawn now if the
   * record's cell is new, spending plan eps) through the optional instantaneous
   * layer, persisted in the queue, then delivered. Resolves with the report and
   * the delivery outcome.
   */
  report(
    record: ArrayLike<number>,
    options: { round: string },
  ): Promise<{ report: WireReport; flush: FlushResult }>;
  /** Retry every pending report (same ids). */
  flush(): Promise<FlushResult>;
  ledger(): ReporterLedger;
  pending(): readonly PendingReport[];
}
