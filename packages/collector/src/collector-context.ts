import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CollectorStorage, StoredRound } from "./api.js";
import type { CorsPolicy } from "./cors.js";
import type { CollectorMetrics } from "./metrics.js";
import type { StorageHealth } from "./storage-health.js";

/** The collector's options checked, with their defaults filled in. */
export interface CollectorSettings {
  readonly adminToken: string;
  readonly maxBatch: number;
  readonly bodyLimit: number;
  readonly maxQueryCells: number;
  readonly idRetentionMs: number;
  /** Per-report count test of unary reports (defences/unary-report-check.ts): its false-positive rate, or undefined when off. */
  readonly unaryReportAlpha: number | undefined;
}

/** What the collector's route groups share: the app, the watched storage and the request helpers. */
export interface CollectorContext {
  readonly app: FastifyInstance;
  readonly settings: CollectorSettings;
  /** The storage, every call reporting to `health` (see `watchedStorage`). */
  readonly storage: CollectorStorage;
  readonly health: StorageHealth;
  /** The collector's Prometheus metrics (metrics.ts). */
  readonly metrics: CollectorMetrics;
  readonly cors: CorsPolicy;
  /** Rounds by id, as loaded or created by this process (plans never change). */
  readonly rounds: Map<string, StoredRound>;
  /** Refused requests since start, by reason (storage-unavailable is counted by `health`). */
  readonly refusals: Map<string, number>;
  /** The round `id` (cached), or 404 `round-not-found`. */
  findRound(id: string): Promise<StoredRound>;
  /** onRequest hook of admin routes: 401 without a bearer token, 403 with a wrong one. */
  admin(request: FastifyRequest): Promise<void>;
  /** Answer an error body `{statusCode, reason, message}`, counting the refusal. */
  send(reply: FastifyReply, statusCode: number, reason: string, message: string): FastifyReply;
  /** 403 `cross-origin-refused` for a preflight the collector does not allow. */
  refusePreflight(reply: FastifyReply): FastifyReply;
}
