import type { FastifyReply, FastifyRequest } from "fastify";
import type { CollectorStorage, RoundRequest, RoundState, StoredRound } from "../api.js";
import type { CorsPolicy } from "../cors.js";

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

/** A campaign round as stored, with its index in the campaign. */
export type IndexedRound = StoredRound & { readonly index: number };

/** A campaign: its definition and its rounds, oldest first. */
export interface Campaign {
  readonly id: string;
  readonly definition: StoredRound;
  readonly roundEveryMs: number | undefined;
  readonly instantEps: number | undefined;
  readonly rounds: readonly IndexedRound[];
}

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
  /** The per-report unary check's false-positive rate (undefined: off); estimates re-base on it. */
  readonly unaryReportAlpha: number | undefined;
  readonly now: () => Date;
}

/** Runs `task` after every earlier task of the same campaign id (in this process) has settled. */
export type Serial = <T>(id: string, task: () => Promise<T>) => Promise<T>;

/** A campaign after its schedule's roll-over (if due), with its latest round's state (undefined without rounds). */
export interface CurrentCampaign {
  readonly campaign: Campaign;
  readonly last: RoundState | undefined;
}

/** What every campaign route uses: the collector's context, the per-campaign queue and the rolled-over read. @internal */
export interface CampaignRoutes {
  readonly context: CampaignContext;
  readonly serial: Serial;
  readonly current: (id: string) => Promise<CurrentCampaign>;
}

/** The `:id` parameter of the campaign routes. */
export type CampaignParams = { id: string };
