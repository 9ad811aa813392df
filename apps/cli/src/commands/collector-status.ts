import { adminCall, adminToken, required } from "./collector-admin.js";
import type { CollectorOptions } from "./collector-options.js";

/**
 * `collector status`: a round's counts (accepted, rejected, per view, duplicates), closing and id
 * retention, flags, and the unary check's dropped reports (`{reports, perView, alpha}`, null when off).
 */
export async function status(options: CollectorOptions): Promise<unknown> {
  const url = required("status", "url", options.url);
  const round = required("status", "round", options.round);
  const answer = await adminCall(url, `/v1/rounds/${encodeURIComponent(round)}/status`, adminToken("status"));
  return {
    round: answer.round,
    accepted: answer.accepted,
    rejected: answer.rejected,
    perView: answer.perView,
    duplicates: answer.duplicates,
    closedAt: answer.closedAt ?? null,
    idsDroppedAt: answer.idsDroppedAt ?? null,
    idsHeld: answer.idsHeld,
    flags: answer.flags ?? [],
    // The per-report unary check's drops (protected mode, or --unary-check): stored counters, per view.
    unaryDropped: answer.unaryDropped ?? null,
  };
}
