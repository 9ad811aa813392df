import type { FastifyInstance } from "fastify";
import { registerNextRoundRoute, registerStatusRoute } from "./campaigns/admin-routes.js";
import { registerCreateRoute } from "./campaigns/create-route.js";
import { registerCurrentRoute } from "./campaigns/current-route.js";
import { registerReportHook } from "./campaigns/report-hook.js";
import { rollOver, serialQueue } from "./campaigns/roll-over.js";
import { registerSeriesRoute } from "./campaigns/series-route.js";
import type { CampaignContext, CampaignRoutes } from "./campaigns/types.js";

export { CURRENT_ROUTE } from "./campaigns/current-route.js";
export { campaignRoundId, roundEstimateOptions, uuidV5 } from "./campaigns/round-id.js";
export { parseRoundEvery } from "./campaigns/schedule.js";
export type { Campaign, CampaignContext, CampaignRequest, CampaignRound } from "./campaigns/types.js";

/**
 * Campaigns: one plan reused by a sequence of rounds. A campaign is
 * stored in the rounds table with no new tables, so every backend has it: its
 * definition is a round (id = the campaign's id) holding the plan, the request,
 * the schedule and the clients' instantEps, closed at creation so it never takes
 * reports; its rounds are ordinary rounds with the same plan (not re-planned),
 * tagged `{campaign: {id, role: "round", index}}`. Closing uses the rounds' own
 * close (`POST /v1/rounds/:id/close`). Routes:
 * - `POST /v1/campaigns` (admin): `{schema, eps, k, n, theta?, roundEvery?, instantEps?}` -> 201
 *   `{campaign, plan, round, index: 0, roundEveryMs, instantEps}`; the first round is open;
 * - `GET /v1/campaigns/:id` (admin): the campaign and its rounds `[{round, index, openedAt, closedAt}]`;
 * - `POST /v1/campaigns/:id/rounds` (admin): close the open round (if any), open the next -> 201;
 * - `GET /v1/campaigns/:id/current` (public, CORS): the open round with its plan
 *   `{campaign, round, index, openedAt, closesAt, wireFormat, maxBatch, plan}`, 404
 *   `no-open-round` when none is open;
 * - `GET /v1/campaigns/:id/marginals?attrs=a,b[&from=&to=][&estimator=]` (admin): the marginal
 *   estimated in every round: `from`/`to` are round indexes (integers) or ISO times
 *   (rounds opened in [from, to]); with instantEps the views are de-biased for the
 *   composed mechanism (estimateCalm's `instantEps`). `&interval=0.95` adds per round the per-cell
 *   interval as on the round endpoint (`noInterval` says why for a round with a view without reports;
 *   400 for calm-plus or an instantaneous layer).
 * With `roundEvery`, a round older than the schedule is closed and the next opened
 * whenever the campaign is read (any of the routes above): clients ask `current`
 * before reporting; a report batch for a scheduled round past its window closes
 * that round first and is refused (409 `round-closed`). Rolling over is serialized within one
 * collector process; across collector processes on one database it is atomic per round: the
 * round of index i has the id {@link campaignRoundId}(campaign, i), and creating a round whose id
 * is stored yields the stored round (PostgreSQL: unique id, insert-or-read in one transaction;
 * ClickHouse: the round number is a hash of the id, readers take one row per id), so two
 * collectors that both see a window end open the same round, never two rounds of one index.
 * (On ClickHouse each racer writes its own row of that round: readers show the earliest opening
 * time, and after ClickHouse merges the rows the surviving one's, so a raced round's `openedAt` may
 * move by the race's duration, milliseconds; its id, index, plan and reports do not.)
 * Unknown campaign: 404 `campaign-not-found`.
 * One file per route under campaigns/ (create, status and next round, current,
 * series), the schedule's report hook, the campaign's load, roll-over and round opening.
 * Cost: one `listRounds` per request, O(rounds); `current` then one or two round-state
 * queries, the campaign's description one per round; a series costs one aggregate
 * query and one estimate per round.
 */
export function registerCampaigns(app: FastifyInstance, context: CampaignContext): void {
  const serial = serialQueue();
  const routes: CampaignRoutes = { context, serial, current: (id) => rollOver(context, serial, id) };
  registerReportHook(app, routes);
  registerCreateRoute(app, routes);
  registerStatusRoute(app, routes);
  registerNextRoundRoute(app, routes);
  registerCurrentRoute(app, routes);
  registerSeriesRoute(app, routes);
}
