import type { FastifyInstance } from "fastify";
import { ROUND_PARAMS } from "../schemas.js";
import { describeRounds, lastRoundState, loadCampaign, roundStates } from "./load.js";
import { openCampaignRound } from "./open-round.js";
import type { CampaignParams, CampaignRoutes } from "./types.js";

/**
 * `GET /v1/campaigns/:id` (admin): the campaign (after a due roll-over) and its
 * rounds `[{round, index, openedAt, closedAt}]`. Cost: a roll-over read and one
 * state query per round.
 */
export function registerStatusRoute(app: FastifyInstance, { context, current }: CampaignRoutes): void {
  app.get<{ Params: CampaignParams }>(
    "/v1/campaigns/:id",
    { onRequest: context.admin, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const { campaign } = await current(request.params.id);
      const closed = await roundStates(context.storage, campaign);
      return {
        campaign: campaign.id,
        createdAt: campaign.definition.createdAt,
        plan: campaign.definition.plan,
        eps: campaign.definition.plan.eps,
        k: campaign.definition.request.k,
        roundEveryMs: campaign.roundEveryMs ?? null,
        instantEps: campaign.instantEps ?? null,
        rounds: describeRounds(campaign, closed),
      };
    },
  );
}

/**
 * `POST /v1/campaigns/:id/rounds` (admin): closes the open round (if any) and
 * opens the next, in the campaign's queue -> 201 `{campaign, round, index,
 * openedAt, closed}` (`closed`: the round closed, or null). Cost: one round
 * listing, one state query, at most one close and one round write.
 */
export function registerNextRoundRoute(app: FastifyInstance, { context, serial }: CampaignRoutes): void {
  const { storage } = context;
  app.post<{ Params: CampaignParams }>(
    "/v1/campaigns/:id/rounds",
    { onRequest: context.admin, schema: { params: ROUND_PARAMS } },
    async (request, reply) => {
      const id = request.params.id;
      const opened = await serial(id, async () => {
        const campaign = await loadCampaign(storage, id);
        const state = await lastRoundState(storage, campaign);
        const last = campaign.rounds.at(-1);
        let previous: string | null = null;
        if (last && state!.closedAt === null) {
          await storage.closeRound(last, context.now());
          previous = last.id;
        }
        const round = await openCampaignRound(context, campaign);
        return { round, previous, index: (round.request.campaign as { index: number }).index };
      });
      return reply.code(201).send({
        campaign: id,
        round: opened.round.id,
        index: opened.index,
        openedAt: opened.round.createdAt,
        closed: opened.previous,
      });
    },
  );
}
