import type { CampaignTag, CollectorStorage, RoundState, StoredRound } from "../api.js";
import { reject } from "../errors.js";
import { roundReadsOf } from "../round-reads.js";
import type { Campaign, CampaignRound } from "./types.js";

/** Every stored round; 501 `campaigns-unsupported` for a storage that cannot list them. One query. */
async function listRounds(storage: CollectorStorage): Promise<StoredRound[]> {
  if (!storage.listRounds)
    reject(501, "campaigns-unsupported", `the ${storage.backend} storage cannot list rounds`);
  return storage.listRounds();
}

/**
 * The campaign `id` from the rounds table: its definition (the round of that id
 * tagged `definition`) and its rounds (tagged `round` with its id), by index then
 * opening time. 404 `campaign-not-found` without a definition. One `listRounds`,
 * O(rounds log rounds).
 */
export async function loadCampaign(storage: CollectorStorage, id: string): Promise<Campaign> {
  const all = await listRounds(storage);
  const definition = all.find(
    (r) => r.id === id && r.request.campaign?.role === "definition" && r.request.campaign.id === id,
  );
  if (!definition) return reject(404, "campaign-not-found", `no campaign with id ${id}`);
  const tag = definition.request.campaign as Extract<CampaignTag, { role: "definition" }>;
  const members = all
    .filter((r) => r.request.campaign?.role === "round" && r.request.campaign.id === id)
    .map((r) => ({ ...r, index: (r.request.campaign as { index: number }).index }))
    .sort((a, b) => a.index - b.index || a.createdAt.localeCompare(b.createdAt));
  return { id, definition, roundEveryMs: tag.roundEveryMs, instantEps: tag.instantEps, rounds: members };
}

/** The state of every round of the campaign, oldest first: one batched read (`roundReadsOf`). */
export function roundStates(storage: CollectorStorage, campaign: Campaign): Promise<RoundState[]> {
  return roundReadsOf(storage).states(campaign.rounds);
}

/** The state of the campaign's latest round (undefined without rounds): one query. */
export function lastRoundState(
  storage: CollectorStorage,
  campaign: Campaign,
): Promise<RoundState | undefined> {
  const last = campaign.rounds.at(-1);
  return last ? storage.roundState(last) : Promise.resolve(undefined);
}

/** The campaign's rounds as the API shows them, `closed` being their states (same order). O(rounds). */
export function describeRounds(campaign: Campaign, closed: readonly RoundState[]): CampaignRound[] {
  return campaign.rounds.map((r, i) => ({
    round: r.id,
    index: r.index,
    openedAt: r.createdAt,
    closedAt: closed[i]!.closedAt,
  }));
}
