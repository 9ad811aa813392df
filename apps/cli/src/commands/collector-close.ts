import { adminCall, adminToken, required } from "./collector-admin.js";
import type { CollectorOptions } from "./collector-options.js";

/** `collector close`: close a round: it keeps its counts, refuses new reports, and drops its report ids after the retention. */
export async function close(options: CollectorOptions): Promise<unknown> {
  const url = required("close", "url", options.url);
  const round = required("close", "round", options.round);
  const answer = await adminCall(
    url,
    `/v1/rounds/${encodeURIComponent(round)}/close`,
    adminToken("close"),
    {},
  );
  return {
    round: answer.round,
    closedAt: answer.closedAt,
    idsDropAfter: answer.idsDropAfter,
    idsDroppedAt: answer.idsDroppedAt,
  };
}
