import type { CalmPlan } from "@calm-ldp/calm-core";
import type {
  BatchAcknowledgement,
  CampaignRoundResponse,
  HttpOptions,
  PlanResponse,
  WireReport,
} from "./api.js";
import { CollectorResponseError } from "./errors.js";
import { readPlan } from "./read-plan.js";

/** @internal One JSON request: the body, or `CollectorResponseError` with the collector's reason. */
export async function call(url: string, init: RequestInit, options: HttpOptions): Promise<unknown> {
  const response = await (options.fetch ?? fetch)(url, { ...init, signal: options.signal ?? null });
  const body = (await response.json().catch(() => ({}))) as { reason?: string; message?: string };
  if (!response.ok) {
    throw new CollectorResponseError(
      `${init.method} ${url}: HTTP ${response.status} ${body.reason ?? ""}: ${body.message ?? ""}`,
      response.status,
      body.reason ?? "unknown",
    );
  }
  return body;
}

/** @internal `<base>/v1/rounds/<round>/<path>`. */
export const roundUrl = (base: string, round: string, path: string): string =>
  `${base.replace(/\/+$/, "")}/v1/rounds/${encodeURIComponent(round)}/${path}`;

/**
 * `GET <base>/v1/rounds/<round>/plan`: the round's plan, checked with
 * {@link readPlan}. Throws `CollectorResponseError` on an HTTP error.
 */
export async function fetchPlan(
  base: string,
  round: string,
  options: HttpOptions = {},
): Promise<PlanResponse & { plan: CalmPlan }> {
  const body = (await call(roundUrl(base, round, "plan"), { method: "GET" }, options)) as PlanResponse;
  return { ...body, plan: readPlan(body.plan) };
}

/**
 * `POST <base>/v1/rounds/<round>/reports` with `{round, reports}`. Resolves once
 * the collector has stored the batch durably; throws `CollectorResponseError`
 * (with the collector's `reason`) when it refuses the batch, and the platform's
 * network error when it cannot be reached: retry then with the same reports
 * (their ids make a retry safe).
 */
export async function sendReports(
  base: string,
  round: string,
  reports: readonly WireReport[],
  options: HttpOptions = {},
): Promise<BatchAcknowledgement> {
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ round, reports }),
  };
  return (await call(roundUrl(base, round, "reports"), init, options)) as BatchAcknowledgement;
}

/**
 * `GET <base>/v1/campaigns/<campaign>/current`: the campaign's open round, with
 * its plan checked by {@link readPlan} (the same plan for every round of the
 * campaign: give it to `createReporter`, report with `{ round }`). Throws
 * `CollectorResponseError`: 404 `campaign-not-found` for an unknown campaign,
 * 404 `no-open-round` between rounds.
 */
export async function fetchCampaignRound(
  base: string,
  campaign: string,
  options: HttpOptions = {},
): Promise<CampaignRoundResponse> {
  const url = `${base.replace(/\/+$/, "")}/v1/campaigns/${encodeURIComponent(campaign)}/current`;
  const body = (await call(url, { method: "GET" }, options)) as CampaignRoundResponse;
  return { ...body, plan: readPlan(body.plan) };
}
