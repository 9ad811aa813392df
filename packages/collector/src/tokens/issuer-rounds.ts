import type { StoredRound } from "../api.js";
import { reject } from "../errors.js";

/** What the issuer needs to know of a round (or of a campaign, for its campaign tokens). */
export interface IssuerRound {
  readonly id: string;
  /** The plan's number of views (m). */
  readonly views: number;
  /** False once the round is closed (no more tokens; the window's quota counts are dropped). */
  readonly open: boolean;
  /** The campaign of a campaign round: its tokens are signed with the key of the device's campaign view. */
  readonly campaign?: string;
}

/** Where the issuer looks rounds and campaigns up: the collector's storage, or the collector's public API. */
export interface RoundLookup {
  /** The round, or 404 `round-not-found`. */
  round(id: string): Promise<IssuerRound>;
  /** The campaign (id, views; `open` while it has an open round), or 404 `campaign-not-found`. */
  campaign(id: string): Promise<IssuerRound>;
  /**
   * What a quota window `id` is now, for pruning the ledger (ledger-prune.ts):
   * `open` (a round taking reports, or a campaign: its campaign tokens count for
   * the campaign's life), `closed` (a closed round: its tokens are worthless) or
   * `gone` (neither a round nor a campaign). Throws when it cannot tell (the
   * collector cannot be reached): the window is then kept.
   */
  windowState(id: string): Promise<WindowState>;
}

/** See {@link RoundLookup.windowState}. */
export type WindowState = "open" | "closed" | "gone";

const notFound = (error: unknown) => (error as { statusCode?: number }).statusCode === 404;

/** The `?view=` query of a campaign round's key routes (token-key, token-directory). */
export const VIEW_QUERY = {
  type: "object",
  additionalProperties: false,
  properties: { view: { type: "string", pattern: "^[0-9]{1,6}$" } },
} as const;

/** The view `query` asks of campaign round `round`, or 400 `view-required` (absent, or not below its views). */
export function askedView(round: IssuerRound, query: string | undefined): number {
  const view = query === undefined ? undefined : Number(query);
  if (view === undefined || view >= round.views)
    reject(400, "view-required", `a campaign round has one key per view: ask ?view= in [0, ${round.views})`);
  return view;
}

/** A stored round as the issuer sees it. */
export function issuerRoundOf(round: StoredRound, open: boolean): IssuerRound {
  const tag = round.request.campaign;
  return {
    id: round.id,
    views: round.plan.views.length,
    open,
    ...(tag?.role === "round" ? { campaign: tag.id } : {}),
  };
}

/** What the in-collector lookup needs: the collector's round cache and round states. */
export interface StoredRounds {
  findRound(id: string): Promise<StoredRound>;
  closedAt(round: StoredRound): Promise<string | null>;
}

/**
 * The issuer inside the collector: rounds from the collector's storage; a
 * campaign is its definition round (stored under the campaign's id, closed at
 * creation, so `open` is true: campaign tokens are issued for the campaign's life).
 * One round read and one state read per call.
 */
export function storedRoundLookup(stored: StoredRounds): RoundLookup {
  return {
    round: async (id) => {
      const round = await stored.findRound(id);
      if (round.request.campaign?.role === "definition")
        reject(409, "round-closed", `${id} is a campaign, not a round: ask its campaign tokens`);
      return issuerRoundOf(round, (await stored.closedAt(round)) === null);
    },
    campaign: async (id) => {
      const round = await stored.findRound(id).catch(() => undefined);
      if (round?.request.campaign?.role !== "definition")
        reject(404, "campaign-not-found", `no campaign with id ${id}`);
      return { id, views: round.plan.views.length, open: true };
    },
    windowState: async (id) => {
      const round = await stored.findRound(id).catch((error) => {
        if (notFound(error)) return undefined;
        throw error;
      });
      if (!round) return "gone";
      if (round.request.campaign?.role === "definition") return "open";
      return (await stored.closedAt(round)) === null ? "open" : "closed";
    },
  };
}

/** The collector's answer to a public GET, or its refusal passed on (404 as given, else 503). */
async function getJson(url: string, fetcher: typeof fetch): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetcher(url, { headers: { accept: "application/json" } });
  } catch (error) {
    return reject(503, "collector-unavailable", `the collector cannot be reached (${String(error)})`);
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return body;
  const reason = typeof body.reason === "string" ? body.reason : "collector-refused";
  if (response.status === 404) return reject(404, reason, `the collector: ${String(body.message)}`);
  return reject(503, "collector-unavailable", `the collector answered ${response.status} (${reason})`);
}

/**
 * The issuer apart from the collector: rounds from the collector's public API
 * (`GET /v1/rounds/:id/plan`: views, closedAt, campaign; `GET
 * /v1/campaigns/:id/current`: the campaign's plan while a round is open). One
 * HTTP request per call (no cache: a round's closing is seen at once). The
 * collector is trusted for these facts only; the keys and the quota stay here.
 */
export function remoteRoundLookup(collectorUrl: string, fetcher: typeof fetch = fetch): RoundLookup {
  const base = collectorUrl.replace(/\/+$/, "");
  const viewsOf = (body: Record<string, unknown>): number => {
    const views = (body.plan as { views?: unknown[] } | undefined)?.views;
    if (!Array.isArray(views) || views.length === 0)
      reject(503, "collector-unavailable", "the collector's plan has no views");
    return views.length;
  };
  return {
    round: async (id) => {
      const body = await getJson(`${base}/v1/rounds/${encodeURIComponent(id)}/plan`, fetcher);
      const campaign = body.campaign;
      return {
        id,
        views: viewsOf(body),
        open: body.closedAt === null,
        ...(typeof campaign === "string" ? { campaign } : {}),
      };
    },
    campaign: async (id) => {
      const url = `${base}/v1/campaigns/${encodeURIComponent(id)}/current`;
      const body = await getJson(url, fetcher).catch((error: { reason?: string }) => {
        if (error.reason === "no-open-round") return { closed: true } as Record<string, unknown>;
        throw error;
      });
      if (body.closed === true) reject(409, "round-closed", `campaign ${id} has no open round`);
      return { id, views: viewsOf(body), open: true };
    },
    // A campaign first (its definition's plan reads as a closed round), then a round.
    windowState: async (id) => {
      const path = encodeURIComponent(id);
      const campaign = await getJson(`${base}/v1/campaigns/${path}/current`, fetcher).catch((error) => {
        if ((error as { reason?: string }).reason === "no-open-round") return {};
        if (notFound(error)) return undefined;
        throw error;
      });
      if (campaign) return "open";
      const round = await getJson(`${base}/v1/rounds/${path}/plan`, fetcher).catch((error) => {
        if (notFound(error)) return undefined;
        throw error;
      });
      if (!round) return "gone";
      return round.closedAt === null ? "open" : "closed";
    },
  };
}
