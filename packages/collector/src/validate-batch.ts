import { type CalmPlan, viewOracles } from "@calm-ldp/calm-core";
import { type ReportBatchBody, WireFormatError } from "@calm-ldp/client";
import { MalformedReportError } from "@calm-ldp/frequency-oracles";
import type { AcceptedReport } from "./api.js";
import { decodeReport } from "./decode-report.js";
import { reject } from "./errors.js";
import { supportedCells } from "./supported-cells.js";

/** The collector's reason for each wire problem (see `WireProblem` of @calm-ldp/client). */
const REASONS: Record<string, string> = {
  id: "invalid-report-id",
  view: "unknown-view",
  kind: "wrong-report-kind",
  value: "value-out-of-range",
  bits: "invalid-bits",
  oracle: "unsupported-oracle",
};

/**
 * Validate a batch for round `roundId` strictly, all or nothing: the body names
 * this round, and every report decodes under the plan (`decodeReport`: id, view, field kind, value range, canonical bits) and passes
 * its view oracle's own check (`supports`, which throws MalformedReportError on a
 * report the oracle cannot produce). Returns each report's id, view and supported
 * cells; throws `RequestRejectedError` (400) with the reason and the index of the
 * first bad report. Nothing is stored for a refused batch. O(total report size).
 */
export function validateBatch(roundId: string, plan: CalmPlan, body: ReportBatchBody): AcceptedReport[] {
  if (body.round !== roundId)
    reject(400, "round-mismatch", "the batch names another round than the URL; nothing was stored");
  const oracles = viewOracles(plan);
  return body.reports.map((wire, index) => {
    try {
      const { view, report } = decodeReport(plan, wire);
      const oracle = oracles[view]!;
      oracle.supports(report, 0);
      return { id: wire.id, view, cells: supportedCells(oracle, report) };
    } catch (error) {
      if (error instanceof WireFormatError)
        reject(400, REASONS[error.problem] ?? "invalid-report", `report ${index}: ${error.message}`);
      if (error instanceof MalformedReportError)
        reject(400, "invalid-report", `report ${index}: ${error.message}`);
      throw error;
    }
  });
}
