import type { CalmPlan } from "@calm-ldp/calm-core";
import { defaultCryptoRng } from "@calm-ldp/random";
import type { CreateReportOptions, WireReport } from "./api.js";
import { encodeReport } from "./encode-report.js";
import { perturbRecord } from "./perturb-record.js";
import { createReportId } from "./report-id.js";

/**
 * What a device runs: perturb one record under `plan` exactly as calm-core's
 * `calmReport` does (CALM §4.1: a uniformly chosen group, the record projected
 * onto its view, the view's oracle under the full eps, with the exact samplers of
 * @calm-ldp/frequency-oracles; same draws in the same order) and return the wire
 * report, with a fresh random report id (version 4, `createReportId`: nothing
 * about the device) unless `options.id` is given. Randomness: `options.rng`, by
 * default the platform's cryptographic generator (Web Crypto). Only the returned
 * report leaves the device. Throws calm-core's `InvalidRecordError` for a record
 * outside the schema. O(d + cells of the view).
 */
export function createReport(
  plan: CalmPlan,
  record: ArrayLike<number>,
  options: CreateReportOptions = {},
): WireReport {
  const rng = options.rng ?? defaultCryptoRng();
  const report = perturbRecord(plan, record, rng, options.view);
  return encodeReport(plan, report, options.id ?? createReportId(rng));
}
