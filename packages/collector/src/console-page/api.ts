import type { CalmPlan } from "@calm-ldp/calm-core";
import type { MarginalAnswer, RoundCounts, RoundState } from "../api.js";
import type { CampaignRound } from "../campaigns.js";
import type { UnaryOnesFlag } from "../defences/unary-ones.js";
import type { ViewBalanceFlag } from "../defences/view-balance.js";
import type { DroppedCount } from "../dropped-reports.js";
import type { CampaignSummary, RoundSummary } from "../listing-routes.js";

export type { CampaignSummary, MarginalAnswer, RoundSummary };

/** `GET /v1/rounds/:id/status`. */
export interface RoundStatus extends RoundCounts, RoundState {
  readonly round: string;
  readonly idsHeld: number;
  readonly idsDropAfter: string | null;
  /** Statistical flags of the round (defences/): views off their share, unary views' ones off honest. */
  readonly flags: readonly (ViewBalanceFlag | UnaryOnesFlag)[];
  /** With the per-report unary check on: the reports it dropped (acknowledged, not stored), and its rate. */
  readonly unaryDropped?: DroppedCount & { readonly alpha: number };
}

/** `GET /v1/rounds/:id/plan`. */
export interface RoundPlan {
  readonly round: string;
  readonly wireFormat: number;
  readonly maxBatch: number;
  readonly closedAt: string | null;
  readonly plan: CalmPlan;
}

/** `GET /v1/campaigns/:id`. */
export interface CampaignDetail {
  readonly campaign: string;
  readonly createdAt: string;
  readonly plan: CalmPlan;
  readonly eps: number;
  readonly k: number;
  readonly roundEveryMs: number | null;
  readonly instantEps: number | null;
  readonly rounds: readonly CampaignRound[];
}

/** One round of `GET /v1/campaigns/:id/marginals`: a round's answer, with where it sits in the campaign. */
export interface SeriesPoint extends CampaignRound, Pick<MarginalAnswer, "n" | "cells" | "lower" | "upper"> {
  /** Why this round has no interval (a view without reports). */
  readonly noInterval?: string;
}

/** `GET /v1/campaigns/:id/marginals`. */
export interface SeriesAnswer extends Pick<MarginalAnswer, "attrs" | "attributes" | "cardinalities"> {
  readonly campaign: string;
  readonly series: readonly SeriesPoint[];
}

/** `GET /readyz`: 200 `{status: "ok", storage}`, or 503 `{status: "unavailable", backend, message}`. */
export interface Health {
  readonly status: "ok" | "unavailable";
  readonly storage: string;
  readonly backend?: string;
  readonly message?: string;
}

/** A collector answer other than 2xx (its `reason` and `message`), or no answer at all (`unreachable`). */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "ConsoleApiError";
  }
}

/** The collector's admin API as the console calls it. */
export interface ConsoleApi {
  get<T>(path: string): Promise<T>;
  post<T>(path: string): Promise<T>;
  /**
   * `GET /readyz` (public; readiness: the collector probes its database): its body
   * for 200 and 503 alike. Not `/healthz`: that is liveness, 200 even while the
   * database is down.
   */
  health(): Promise<Health>;
}

/**
 * The collector that served this page, read with `Authorization: Bearer <token>`.
 * Paths are resolved against the page (`/console/` -> `../v1/...`), so a collector
 * behind a path prefix works too; requests are same-origin only (`mode:
 * "same-origin"`, no cookies, never cached). A non-2xx answer throws
 * `ConsoleApiError` with the collector's reason; a failed fetch throws one with
 * reason `unreachable`.
 */
export function consoleApi(token: string, base: string = document.baseURI): ConsoleApi {
  const call = async (method: string, path: string, auth: boolean): Promise<Response> => {
    const url = new URL(`..${path}`, base);
    try {
      return await fetch(url, {
        method,
        mode: "same-origin",
        credentials: "omit",
        cache: "no-store",
        headers: auth ? { authorization: `Bearer ${token}` } : {},
      });
    } catch (error) {
      throw new ConsoleApiError(0, "unreachable", `the collector did not answer: ${String(error)}`);
    }
  };
  const json = async <T>(response: Response): Promise<T> => {
    const body = (await response.json().catch(() => ({}))) as { reason?: string; message?: string };
    if (!response.ok)
      throw new ConsoleApiError(
        response.status,
        body.reason ?? `http-${response.status}`,
        body.message ?? response.statusText,
      );
    return body as T;
  };
  return {
    get: async (path) => json(await call("GET", path, true)),
    post: async (path) => json(await call("POST", path, true)),
    health: async () => (await (await call("GET", "/readyz", false)).json()) as Health,
  };
}
