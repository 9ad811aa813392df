import { WIRE_FORMAT_VERSION } from "@calm-ldp/client";
import type { FastifyInstance } from "fastify";
import { reject } from "../errors.js";
import { ROUND_PARAMS } from "../schemas.js";
import type { CampaignParams, CampaignRoutes } from "./types.js";

/** The public route a client asks for the campaign's open round (CORS like the plan route). */
export const CURRENT_ROUTE = "/v1/campaigns/:id/current";

/**
 * `GET /v1/campaigns/:id/current` (public, CORS, with its preflight): the open
 * round after a due roll-over, with its plan `{campaign, round, index, openedAt,
 * closesAt, instantEps, wireFormat, maxBatch, plan}`; 404 `no-open-round` when none
 * is open. Cost: one round listing and one or two state queries.
 */
export function registerCurrentRoute(app: FastifyInstance, { context, current }: CampaignRoutes): void {
  const { cors } = context;
  app.options(CURRENT_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "GET") ? reply.send() : context.refusePreflight(reply),
  );
  app.get<{ Params: CampaignParams }>(
    CURRENT_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const { campaign, last } = await current(request.params.id);
      const i = campaign.rounds.length - 1;
      if (i < 0 || last!.closedAt !== null)
        reject(404, "no-open-round", `campaign ${campaign.id} has no open round`);
      const round = campaign.rounds[i]!;
      return {
        campaign: campaign.id,
        round: round.id,
        index: round.index,
        openedAt: round.createdAt,
        closesAt:
          campaign.roundEveryMs === undefined
            ? null
            : new Date(Date.parse(round.createdAt) + campaign.roundEveryMs).toISOString(),
        instantEps: campaign.instantEps ?? null,
        wireFormat: WIRE_FORMAT_VERSION,
        maxBatch: context.maxBatch,
        plan: round.plan,
      };
    },
  );
}
