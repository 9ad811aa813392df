import type { FastifyInstance } from "fastify";
import type { CampaignTag } from "../api.js";
import { planRound } from "../create-round.js";
import { ROUND_BODY } from "../schemas.js";
import { loadCampaign } from "./load.js";
import { openCampaignRound } from "./open-round.js";
import { parseRoundEvery } from "./schedule.js";
import type { CampaignRequest, CampaignRoutes } from "./types.js";

const CAMPAIGN_BODY = {
  ...ROUND_BODY,
  properties: {
    ...ROUND_BODY.properties,
    roundEvery: { anyOf: [{ type: "string", maxLength: 16 }, { type: "integer" }] },
    instantEps: { type: "number", exclusiveMinimum: 0, maximum: 20 },
  },
} as const;

/**
 * `POST /v1/campaigns` (admin): plans the round request once, stores the
 * definition (closed at once: it never takes reports) and opens round 0 -> 201
 * `{campaign, plan, round, index: 0, roundEveryMs, instantEps}`. Cost: one plan,
 * two writes and a close, one round listing.
 */
export function registerCreateRoute(app: FastifyInstance, { context }: CampaignRoutes): void {
  const { storage, admin } = context;
  app.post<{ Body: CampaignRequest }>(
    "/v1/campaigns",
    { onRequest: admin, schema: { body: CAMPAIGN_BODY } },
    async (request, reply) => {
      const { roundEvery, instantEps, ...roundRequest } = request.body;
      const roundEveryMs = roundEvery === undefined ? undefined : parseRoundEvery(roundEvery);
      const planned = planRound(roundRequest, context.now());
      const tag: CampaignTag = {
        id: planned.id,
        role: "definition",
        ...(roundEveryMs !== undefined ? { roundEveryMs } : {}),
        ...(instantEps !== undefined ? { instantEps } : {}),
      };
      const definition = await storage.createRound({
        ...planned,
        request: { ...roundRequest, campaign: tag },
      });
      await storage.closeRound(definition, context.now()); // the definition never takes reports
      const first = await openCampaignRound(context, await loadCampaign(storage, definition.id));
      return reply.code(201).send({
        campaign: definition.id,
        plan: definition.plan,
        round: first.id,
        index: 0,
        roundEveryMs: roundEveryMs ?? null,
        instantEps: instantEps ?? null,
      });
    },
  );
}
