import type { FastifyInstance } from "fastify";
import { REPORTS_ROUTE } from "../schemas.js";
import type { CampaignRoutes } from "./types.js";

/**
 * A report batch for a scheduled campaign round past its window closes the round
 * first (in the campaign's queue), so it is refused (409 round-closed) even when
 * nobody read the campaign since the window ended. Other routes and rounds pass.
 * Cost per report batch: a cache lookup (one `findRound` on a miss); past the
 * window, one state query and at most one close.
 */
export function registerReportHook(app: FastifyInstance, { context, serial }: CampaignRoutes): void {
  const { storage, rounds } = context;
  app.addHook("preHandler", async (request) => {
    if (request.routeOptions.url !== REPORTS_ROUTE) return;
    const id = (request.params as { id?: string }).id;
    let round = id === undefined ? undefined : rounds.get(id);
    if (id !== undefined && !round) {
      round = await storage.findRound(id);
      if (round) rounds.set(id, round);
    }
    const tag = round?.request.campaign;
    if (!round || tag?.role !== "round" || tag.roundEveryMs === undefined) return;
    if (Date.parse(round.createdAt) + tag.roundEveryMs > context.now().getTime()) return;
    await serial(tag.id, async () => {
      if ((await storage.roundState(round)).closedAt === null) await storage.closeRound(round, context.now());
    });
  });
}
