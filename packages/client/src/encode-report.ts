import type { CalmPlan, CalmReport } from "@calm-ldp/calm-core";
import type { WireReport } from "./api.js";
import { encodeBase64 } from "./base64.js";
import { wireError } from "./errors.js";
import { isReportId } from "./report-id.js";
import { wireKind } from "./wire-kind.js";

/**
 * The wire form ({@link WireReport}) of a CALM report `{view, report}` of `plan`
 * under report id `id`: GRR views carry the reported value, unary views (OUE,
 * SUE) the bitset as base64 of its ceil(cells / 8) little-endian bytes. Checks
 * the report against its view (value range, bitset length, padding bits) and
 * throws `WireFormatError` otherwise. O(cells / 8).
 */
export function encodeReport(plan: CalmPlan, report: CalmReport, id: string): WireReport {
  const where = "encodeReport";
  if (!isReportId(id)) wireError(where, "id", `id must be a lower-case UUID (got ${JSON.stringify(id)})`);
  const view = report.view;
  const kind = wireKind(where, plan, view);
  const cells = plan.views[view]!.cells;
  const payload = report.report;
  if (kind === "value") {
    if (typeof payload !== "number" || !Number.isInteger(payload) || payload < 0 || payload >= cells)
      wireError(where, "value", `a GRR report of view ${view} is an integer in [0, ${cells})`);
    return { id, view, value: payload };
  }
  const words = (cells + 31) >>> 5;
  if (!(payload instanceof Uint32Array) || payload.length !== words)
    wireError(where, "bits", `a unary report of view ${view} is a Uint32Array of ${words} words`);
  const bytes = new Uint8Array((cells + 7) >>> 3);
  for (let x = 0; x < words * 32; x++) {
    if ((payload[x >>> 5]! >>> (x & 31)) & 1) {
      if (x >= cells) wireError(where, "bits", `bit ${x} is set but view ${view} has ${cells} cells`);
      bytes[x >>> 3]! |= 1 << (x & 7);
    }
  }
  return { id, view, bits: encodeBase64(bytes) };
}
