import type { StoredRound } from "../api.js";
import { campaignRoundId } from "./round-id.js";
import type { Campaign, CampaignContext } from "./types.js";

/**
 * Opens the campaign's next round (index: the latest's + 1, or 0) with the
 * definition's plan (one plan for the whole campaign, not re-planned) and request,
 * tagged `{campaign: {id, role: "round", index, instantEps?, roundEveryMs?}}`; adds
 * it to the collector's round cache. Its id is {@link campaignRoundId}, so when
 * another collector on this database opened it already, that stored round is it.
 * One `findRound`, then one `createRound` if absent.
 */
export async function openCampaignRound(context: CampaignContext, campaign: Campaign): Promise<StoredRound> {
  const { storage, rounds } = context;
  const index = campaign.rounds.length === 0 ? 0 : campaign.rounds.at(-1)!.index + 1;
  const id = campaignRoundId(campaign.id, index);
  // Another collector on this database may have opened it already: then it is that round.
  const existing = await storage.findRound(id);
  if (existing) {
    rounds.set(existing.id, existing);
    return existing;
  }
  const { campaign: _tag, ...request } = campaign.definition.request;
  const round = await storage.createRound({
    id,
    createdAt: context.now().toISOString(),
    plan: campaign.definition.plan, // ONE plan for the whole campaign, not re-planned
    request: {
      ...request,
      campaign: {
        id: campaign.id,
        role: "round",
        index,
        ...(campaign.instantEps !== undefined ? { instantEps: campaign.instantEps } : {}),
        ...(campaign.roundEveryMs !== undefined ? { roundEveryMs: campaign.roundEveryMs } : {}),
      },
    },
  });
  rounds.set(round.id, round);
  return round;
}
