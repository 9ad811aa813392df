import { UsageError } from "../cli-kit.js";
import { adminCall, adminToken, campaignCall, required } from "./collector-admin.js";
import { queryCampaign } from "./collector-campaign.js";
import type { CollectorOptions } from "./collector-options.js";

/**
 * `collector query`: a round's marginal of --attrs (with --interval, its per-cell
 * interval), or with --campaign the marginal's time series across the campaign's rounds.
 */
export async function query(options: CollectorOptions): Promise<unknown> {
  const url = required("query", "url", options.url);
  const attrs = required("query", "attrs", options.attrs);
  if (options.campaign !== undefined) {
    if (options.round !== undefined)
      throw new UsageError("collector query: give --campaign or --round, not both");
    return queryCampaign(campaignCall("query", options, url));
  }
  if (options.from !== undefined || options.to !== undefined)
    throw new UsageError("collector query: --from and --to need --campaign");
  const round = required("query", "round", options.round);
  const interval = options.interval === undefined ? "" : `&interval=${options.interval}`;
  const answer = await adminCall(
    url,
    `/v1/rounds/${encodeURIComponent(round)}/marginals?attrs=${encodeURIComponent(attrs)}${interval}`,
    adminToken("query"),
  );
  return {
    attrs: answer.attrs,
    cells: answer.cells,
    n: answer.n,
    expectedSse: answer.expectedSse,
    cardinalities: answer.cardinalities,
    method: answer.method,
    eps: answer.eps,
    round: answer.round,
    ...(options.interval === undefined
      ? {}
      : {
          level: answer.level,
          lower: answer.lower,
          upper: answer.upper,
          standardError: answer.standardError,
          intervalMethod: answer.intervalMethod,
          center: answer.center,
        }),
  };
}
