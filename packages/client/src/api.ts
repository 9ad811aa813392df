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
  readonly plan: CalmPlan;
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
  /** Report id (default: a fresh random UUID from `rng`). Retries reuse the id. */
  readonly id?: string;
  /** The group the collector assigned (plans with `assignment: "assigned"` only). */
  readonly view?: number;
}

/** Options of the HTTP helpers: a `fetch` to use instead of the global one, and an abort signal. */
export interface HttpOptions {
  readonly fetch?: typeof fetch;
  readonly signal?: AbortSignal;
}
