import { createHash } from "node:crypto";
import { WIRE_FORMAT_VERSION } from "@calm-ldp/client";
import { CannotRunError } from "@calm-ldp/errors";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CampaignTag, CollectorStorage, RoundRequest, RoundState, StoredRound } from "./api.js";
import type { CorsPolicy } from "./cors.js";
import { planRound } from "./create-round.js";
import { reject } from "./errors.js";
import {
  type EstimatedMarginal,
  type Estimator,
  estimateMarginal,
  intervalFields,
} from "./estimate-marginal.js";
import { marginalQuery } from "./query-attributes.js";
import { roundReadsOf } from "./round-reads.js";
import { REPORTS_ROUTE, ROUND_BODY, ROUND_PARAMS } from "./schemas.js";

/** The body of `POST /v1/campaigns`: a round's parameters plus the schedule and the clients' layer. */
export interface CampaignRequest extends RoundRequest {
  /** Rounds roll over on this schedule: `"90s"`, `"15m"`, `"1h"`, `"1d"`, or milliseconds. Absent: the admin opens rounds. */
  readonly roundEvery?: string | number;
  /** The eps of the clients' instantaneous layer (createReporter's `instantEps`); estimates de-bias for it. */
  readonly instantEps?: number;
}

/** One round of a campaign as the API shows it. */
export interface CampaignRound {
  readonly round: string;
  readonly index: number;
  readonly openedAt: string;
  readonly closedAt: string | null;
}

/** A campaign: its definition and its rounds, oldest first. */
export interface Campaign {
  readonly id: string;
  readonly definition: StoredRound;
  readonly roundEveryMs: number | undefined;
  readonly instantEps: number | undefined;
  readonly rounds: readonly (StoredRound & { readonly index: number })[];
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `"90s" | "15m" | "1h" | "1d"` (a positive integer and a unit) or a number of
 * milliseconds (an integer >= 1000) -> milliseconds; throws `RequestRejectedError`
 * (400, "invalid-campaign") otherwise. O(1).
 */
export function parseRoundEvery(value: string | number): number {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 1000) return value;
  } else {
    const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(value);
    if (match) return Number(match[1]) * UNITS[match[2]!]!;
  }
  return reject(
    400,
    "invalid-campaign",
    `roundEvery must be like 90s, 15m, 1h or 1d, or milliseconds >= 1000 (got ${JSON.stringify(value)})`,
  );
}

const CAMPAIGN_BODY = {
  ...ROUND_BODY,
  properties: {
    ...ROUND_BODY.properties,
    roundEvery: { anyOf: [{ type: "string", maxLength: 16 }, { type: "integer" }] },
    instantEps: { type: "number", exclusiveMinimum: 0, maximum: 20 },
  },
} as const;

const SERIES_QUERY = {
  type: "object",
  required: ["attrs"],
  additionalProperties: false,
  properties: {
    attrs: { type: "string", minLength: 1, maxLength: 4096 },
    from: { type: "string", minLength: 1, maxLength: 40 },
    to: { type: "string", minLength: 1, maxLength: 40 },
    estimator: { type: "string", enum: ["calm", "calm-plus"] },
    interval: { type: "string", maxLength: 64 },
  },
} as const;

/** The public route a client asks for the campaign's open round (CORS like the plan route). */
export const CURRENT_ROUTE = "/v1/campaigns/:id/current";

/** What `registerCampaigns` needs from the collector. @internal */
export interface CampaignContext {
  readonly storage: CollectorStorage;
  readonly admin: (request: FastifyRequest) => Promise<void>;
  readonly cors: CorsPolicy;
  readonly refusePreflight: (reply: FastifyReply) => unknown;
  /** The collector's round cache (rounds created here are added). */
  readonly rounds: Map<string, StoredRound>;
  readonly maxBatch: number;
  readonly maxQueryCells: number;
  readonly now: () => Date;
}

type Params = { id: string };

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
 * Cost: one `listRounds` per request, O(rounds); `current` then one or two round-state
 * queries, the campaign's description one states query (`roundReadsOf`); a series
 * costs one batched aggregate read (a fixed number of queries) and one estimate per round.
 */
export function registerCampaigns(app: FastifyInstance, context: CampaignContext): void {
  const { storage, admin, cors, rounds } = context;
  const listRounds = async (): Promise<StoredRound[]> => {
    if (!storage.listRounds)
      reject(501, "campaigns-unsupported", `the ${storage.backend} storage cannot list rounds`);
    return storage.listRounds();
  };

  const load = async (id: string): Promise<Campaign> => {
    const all = await listRounds();
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
  };

  const openRound = async (campaign: Campaign): Promise<StoredRound> => {
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
  };

  const states = (campaign: Campaign): Promise<RoundState[]> => roundReadsOf(storage).states(campaign.rounds);

  // Roll-overs of one campaign run one at a time in this process.
  const locks = new Map<string, Promise<unknown>>();
  const serial = <T>(id: string, task: () => Promise<T>): Promise<T> => {
    const run = (locks.get(id) ?? Promise.resolve()).then(task, task);
    locks.set(
      id,
      run.catch(() => undefined),
    );
    return run;
  };

  /** The state of the campaign's latest round (undefined without rounds): one query. */
  const lastState = (campaign: Campaign): Promise<RoundState | undefined> => {
    const last = campaign.rounds.at(-1);
    return last ? storage.roundState(last) : Promise.resolve(undefined);
  };

  /**
   * The campaign after the schedule's roll-over (if due), with its latest round's
   * state (routes that show every round ask `states` themselves): a client's
   * `current` costs one round listing and one or two state queries, not one per round.
   */
  const current = (id: string) =>
    serial(id, async () => {
      let campaign = await load(id);
      let last = await lastState(campaign);
      const every = campaign.roundEveryMs;
      if (every !== undefined) {
        const latest = campaign.rounds.at(-1);
        const now = context.now().getTime();
        const due = !latest || last!.closedAt !== null || Date.parse(latest.createdAt) + every <= now;
        if (due) {
          if (latest && last!.closedAt === null) await storage.closeRound(latest, context.now());
          await openRound(campaign);
          campaign = await load(id);
          last = await lastState(campaign);
        }
      }
      return { campaign, last };
    });

  const describe = (campaign: Campaign, closed: readonly RoundState[]): CampaignRound[] =>
    campaign.rounds.map((r, i) => ({
      round: r.id,
      index: r.index,
      openedAt: r.createdAt,
      closedAt: closed[i]!.closedAt,
    }));

  // A report for a scheduled round past its window closes the round first, so it is refused
  // (409 round-closed) even when nobody read the campaign since the window ended.
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
      const first = await openRound(await load(definition.id));
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

  app.get<{ Params: Params }>(
    "/v1/campaigns/:id",
    { onRequest: admin, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const { campaign } = await current(request.params.id);
      const closed = await states(campaign);
      return {
        campaign: campaign.id,
        createdAt: campaign.definition.createdAt,
        plan: campaign.definition.plan,
        eps: campaign.definition.plan.eps,
        k: campaign.definition.request.k,
        roundEveryMs: campaign.roundEveryMs ?? null,
        instantEps: campaign.instantEps ?? null,
        rounds: describe(campaign, closed),
      };
    },
  );

  app.post<{ Params: Params }>(
    "/v1/campaigns/:id/rounds",
    { onRequest: admin, schema: { params: ROUND_PARAMS } },
    async (request, reply) => {
      const id = request.params.id;
      const opened = await serial(id, async () => {
        const campaign = await load(id);
        const state = await lastState(campaign);
        const last = campaign.rounds.at(-1);
        let previous: string | null = null;
        if (last && state!.closedAt === null) {
          await storage.closeRound(last, context.now());
          previous = last.id;
        }
        const round = await openRound(campaign);
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

  app.options(CURRENT_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "GET") ? reply.send() : context.refusePreflight(reply),
  );
  app.get<{ Params: Params }>(
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

  app.get<{
    Params: Params;
    Querystring: { attrs: string; from?: string; to?: string; estimator?: Estimator; interval?: string };
  }>(
    "/v1/campaigns/:id/marginals",
    { onRequest: admin, schema: { params: ROUND_PARAMS, querystring: SERIES_QUERY } },
    async (request) => {
      const { campaign } = await current(request.params.id);
      const closed = await states(campaign);
      const plan = campaign.definition.plan;
      const { attributes, estimator, level } = marginalQuery(
        plan,
        request.query,
        context.maxQueryCells,
        campaign.instantEps === undefined ? undefined : "a campaign with an instantaneous layer",
      );
      const { from, to } = request.query;
      const inRange = rangeFilter(from, to);
      const series = [];
      const shown = campaign.rounds.filter(inRange);
      const support = await roundReadsOf(storage).support(shown); // one read for all rounds
      let shownIndex = 0;
      for (const [i, round] of campaign.rounds.entries()) {
        if (!inRange(round)) continue;
        const counts = support[shownIndex++]!;
        const options = campaign.instantEps === undefined ? {} : { instantEps: campaign.instantEps };
        // A round with a view still without reports has no interval (it says why); the others do.
        let answer: EstimatedMarginal;
        let noInterval: string | undefined;
        try {
          answer = estimateMarginal(plan, counts, attributes, options, estimator, level);
        } catch (error) {
          if (level === undefined || !(error instanceof CannotRunError)) throw error;
          answer = estimateMarginal(plan, counts, attributes, options, estimator);
          noInterval = error.message;
        }
        series.push({
          round: round.id,
          index: round.index,
          openedAt: round.createdAt,
          closedAt: closed[i]!.closedAt,
          n: answer.n,
          method: answer.method,
          cells: Array.from(answer.table.cells),
          // The closed form is for reports at the plan's eps; with an instantaneous layer it does not apply.
          expectedSse: campaign.instantEps === undefined ? answer.expectedSse : null,
          ...intervalFields(answer.interval),
          ...(noInterval === undefined ? {} : { noInterval }),
        });
      }
      return {
        campaign: campaign.id,
        attrs: attributes.map((a) => plan.schema.attributes[a]!.name),
        attributes,
        cardinalities: attributes.map((a) => plan.schema.attributes[a]!.labels.length),
        eps: plan.eps,
        instantEps: campaign.instantEps ?? null,
        estimator,
        series,
      };
    },
  );
}

/** `from`/`to`: both round indexes (integers) or ISO times compared with the opening time. */
function rangeFilter(from: string | undefined, to: string | undefined) {
  const bound = (value: string | undefined, name: string): { index?: number; time?: number } => {
    if (value === undefined) return {};
    if (/^[0-9]{1,9}$/.test(value)) return { index: Number(value) };
    const time = Date.parse(value);
    if (Number.isNaN(time))
      reject(
        400,
        "invalid-range",
        `${name} must be a round index or an ISO time (got ${JSON.stringify(value)})`,
      );
    return { time };
  };
  const lo = bound(from, "from");
  const hi = bound(to, "to");
  return (round: StoredRound & { index: number }) => {
    const opened = Date.parse(round.createdAt);
    if (lo.index !== undefined && round.index < lo.index) return false;
    if (hi.index !== undefined && round.index > hi.index) return false;
    if (lo.time !== undefined && opened < lo.time) return false;
    if (hi.time !== undefined && opened > hi.time) return false;
    return true;
  };
}

/**
 * The estimate options of a round: a campaign round whose clients use an
 * instantaneous layer is de-biased for it (its `expectedSse` closed form does not
 * apply then). O(1). @internal
 */
export function roundEstimateOptions(round: StoredRound): { instantEps?: number } {
  const tag = round.request.campaign;
  return tag?.role === "round" && tag.instantEps !== undefined ? { instantEps: tag.instantEps } : {};
}

/**
 * The id of round `index` of a campaign: a name-based UUID (RFC 9562 version 5:
 * SHA-1 of the campaign's id as namespace and `round/<index>`), so every
 * collector derives the same id for the same round and concurrent roll-overs on
 * one database open one round, not two. Public like every round id (it says no
 * more than the campaign id and the index). O(1).
 */
export function campaignRoundId(campaign: string, index: number): string {
  return uuidV5(campaign, `round/${index}`);
}

/** RFC 9562 version-5 UUID of `name` (UTF-8) in the UUID `namespace`. O(length). @internal */
export function uuidV5(namespace: string, name: string): string {
  const bytes = Buffer.from(namespace.replaceAll("-", ""), "hex");
  if (bytes.length !== 16) throw new CannotRunError(`namespace ${JSON.stringify(namespace)} is not a UUID`);
  const hash = createHash("sha1").update(bytes).update(name, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
