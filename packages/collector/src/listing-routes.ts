import { REPORT_ID_PATTERN } from "@calm-ldp/client";
import type { CampaignTag, RoundCounts, RoundState, RoundStatus, StoredRound } from "./api.js";
import type { CollectorContext } from "./collector-context.js";
import { reject } from "./errors.js";
import { roundReadsOf } from "./round-reads.js";

/** The query of `GET /v1/rounds`: `campaign=<id>` (that campaign's rounds) or `campaign=none` (rounds of no campaign). */
const ROUNDS_QUERY = {
  type: "object",
  additionalProperties: false,
  properties: {
    campaign: { type: "string", anyOf: [{ pattern: REPORT_ID_PATTERN }, { const: "none" }] },
  },
} as const;

/** One round as `GET /v1/rounds` lists it: its place, parameters, lifecycle and counters. */
export interface RoundSummary extends RoundCounts, RoundState {
  readonly round: string;
  readonly createdAt: string;
  /** The campaign the round belongs to, or null. */
  readonly campaign: string | null;
  /** Its number in the campaign, or null. */
  readonly index: number | null;
  readonly eps: number;
  readonly k: number;
  /** Views (user groups) of the plan. */
  readonly m: number;
  /** When its report ids are dropped (closedAt + idRetentionMs), null while open. */
  readonly idsDropAfter: string | null;
  /** Report ids the round holds now. */
  readonly idsHeld: number;
}

/** One campaign as `GET /v1/campaigns` lists it. */
export interface CampaignSummary {
  readonly campaign: string;
  readonly createdAt: string;
  readonly eps: number;
  readonly k: number;
  readonly m: number;
  readonly roundEveryMs: number | null;
  readonly instantEps: number | null;
  /** Rounds opened so far. */
  readonly rounds: number;
  /** Its open round, or null (none opened yet, or the last one closed). */
  readonly openRound: string | null;
}

/** When a round closed at `closedAt` drops its report ids: closedAt + retention (ISO), null while open. O(1). */
export function idsDropAfter(closedAt: string | null, idRetentionMs: number): string | null {
  return closedAt === null ? null : new Date(Date.parse(closedAt) + idRetentionMs).toISOString();
}

/**
 * The listing endpoints the operator console reads (admin; same-origin only, no CORS):
 * - `GET /v1/campaigns`: every campaign, oldest first (`CampaignSummary`), no roll-over;
 * - `GET /v1/rounds[?campaign=<id>|none]`: `{idRetentionMs, rounds}`, every round that takes
 *   reports (campaign definitions are not rounds), oldest first, each a `RoundSummary`
 *   (the status endpoint's counters, its state, ids held and when they go).
 * Cost: one `listRounds`; then one query for the states of the campaigns' latest
 * rounds, or the listed rounds' counters, states and held ids in a fixed number of
 * queries (`roundReadsOf`; a storage without batched reads: three per round). A storage without
 * `listRounds` answers 501 `campaigns-unsupported`.
 */
export function registerListings(context: CollectorContext): void {
  const { app, storage, admin } = context;
  const { idRetentionMs } = context.settings;
  const allRounds = async (): Promise<StoredRound[]> => {
    if (!storage.listRounds)
      reject(501, "campaigns-unsupported", `the ${storage.backend} storage cannot list rounds`);
    return storage.listRounds();
  };

  app.get<{ Querystring: { campaign?: string } }>(
    "/v1/rounds",
    { onRequest: admin, schema: { querystring: ROUNDS_QUERY } },
    async (request) => {
      const wanted = request.query.campaign;
      const listed = (await allRounds()).filter((round) => {
        const tag = round.request.campaign;
        if (tag?.role === "definition") return false;
        if (wanted === undefined) return true;
        return wanted === "none" ? tag === undefined : tag?.id === wanted;
      });
      const statuses = await roundReadsOf(storage).statuses(listed);
      const rounds = listed.map((round, i) => summarizeRound(round, statuses[i]!, idRetentionMs));
      return { idRetentionMs, rounds };
    },
  );

  app.get("/v1/campaigns", { onRequest: admin }, async () => {
    const all = await allRounds();
    const members = new Map<string, StoredRound[]>();
    for (const round of all) {
      const tag = round.request.campaign;
      if (tag?.role === "round") members.set(tag.id, [...(members.get(tag.id) ?? []), round]);
    }
    const definitions = all.filter((round) => round.request.campaign?.role === "definition");
    const sorted = definitions.map((definition) =>
      (members.get(definition.id) ?? []).sort((a, b) => indexOf(a) - indexOf(b)),
    );
    const lasts = sorted.flatMap((rounds) => rounds.slice(-1));
    const lastStates = new Map(
      (await roundReadsOf(storage).states(lasts)).map((state, i) => [lasts[i]!.id, state]),
    );
    const campaigns = definitions.map((definition, i): CampaignSummary => {
      const tag = definition.request.campaign as Extract<CampaignTag, { role: "definition" }>;
      const rounds = sorted[i]!;
      const last = rounds.at(-1);
      const open = last !== undefined && lastStates.get(last.id)?.closedAt === null;
      return {
        campaign: definition.id,
        createdAt: definition.createdAt,
        eps: definition.plan.eps,
        k: definition.request.k,
        m: definition.plan.m,
        roundEveryMs: tag.roundEveryMs ?? null,
        instantEps: tag.instantEps ?? null,
        rounds: rounds.length,
        openRound: open ? last.id : null,
      };
    });
    return { campaigns };
  });
}

/** A campaign round's index (0 for rounds of no campaign). */
function indexOf(round: StoredRound): number {
  const tag = round.request.campaign;
  return tag?.role === "round" ? tag.index : 0;
}

/** A round's `RoundSummary` from its status (counters, state, ids held). O(views + reasons). */
function summarizeRound(round: StoredRound, status: RoundStatus, idRetentionMs: number): RoundSummary {
  const { counts, state, idsHeld } = status;
  const tag = round.request.campaign;
  return {
    round: round.id,
    createdAt: round.createdAt,
    campaign: tag?.role === "round" ? tag.id : null,
    index: tag?.role === "round" ? tag.index : null,
    eps: round.plan.eps,
    k: round.request.k,
    m: round.plan.m,
    ...counts,
    ...state,
    idsDropAfter: idsDropAfter(state.closedAt, idRetentionMs),
    idsHeld,
  };
}
