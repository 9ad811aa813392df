import type { CalmPlan, CalmReport } from "@calm-ldp/calm-core";
import { isReportId, WireFormatError, type WireProblem, type WireReport, wireKind } from "@calm-ldp/client";
import { decodeBase64 } from "./base64-decode.js";

function wireError(where: string, problem: WireProblem, detail: string): never {
  throw new WireFormatError(`${where}: ${detail}`, problem);
}

/** `token`: checked by the protected mode's report gate (tokens/check-reports.ts), ignored here. */
const FIELDS = new Set(["id", "view", "value", "bits", "token"]);

/**
 * Parse one wire report (the format of @calm-ldp/client's `WireReport`) strictly
 * against `plan`, as the collector does for every report before anything is stored: an object with exactly the fields of its
 * view's kind, a lower-case UUID id, a view of the plan, a GRR value in [0,
 * cells) or the canonical base64 of a ceil(cells / 8)-byte bitset with no bit set
 * at or beyond cells. Returns the CALM report (`report` a number for GRR, a
 * Uint32Array bitset of ceil(cells / 32) words for OUE/SUE) that calm-core's
 * aggregator counts; throws `WireFormatError` naming the problem. O(cells / 8).
 */
export function decodeReport(plan: CalmPlan, wire: WireReport): CalmReport {
  const where = "decodeReport";
  if (typeof wire !== "object" || wire === null || Array.isArray(wire))
    wireError(where, "kind", "a report must be an object");
  for (const key of Object.keys(wire))
    if (!FIELDS.has(key)) wireError(where, "kind", `unknown field ${JSON.stringify(key)}`);
  if (!isReportId(wire.id)) wireError(where, "id", "id must be a lower-case UUID");
  const view = wire.view;
  const kind = wireKind(where, plan, view);
  const cells = plan.views[view]!.cells;
  if (kind === "value") {
    if (wire.bits !== undefined || wire.value === undefined)
      wireError(where, "kind", `view ${view} uses GRR: the report carries "value" only`);
    const value = wire.value;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value >= cells)
      wireError(where, "value", `value must be an integer in [0, ${cells}) (got ${String(value)})`);
    return { view, report: value };
  }
  if (wire.value !== undefined || typeof wire.bits !== "string")
    wireError(where, "kind", `view ${view} uses a unary oracle: the report carries "bits" only`);
  const bytes = decodeBase64(wire.bits, (cells + 7) >>> 3);
  if (!bytes) wireError(where, "bits", `bits must be the canonical base64 of ${(cells + 7) >>> 3} bytes`);
  const words = new Uint32Array((cells + 31) >>> 5);
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte !== 0 && 8 * i + 8 > cells && byte >>> (cells - 8 * i) !== 0)
      wireError(where, "bits", `bits at or beyond cells = ${cells} are set`);
    words[i >>> 2]! |= byte << (8 * (i & 3));
  }
  return { view, report: words };
}
