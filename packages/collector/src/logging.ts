import {
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import type { CollectorOptions, CollectorStorage } from "./api.js";
import { InvalidParameterError } from "./errors.js";

/** Pino's levels, quietest last. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/**
 * Fastify's logger for the collector's options: off unless `logger` or
 * `logLevel` is given; then JSON lines (pino) at `logLevel` (default "info") to
 * `logStream` (default stderr, so a CLI's stdout stays its JSON answer).
 * Per-request lines only at "debug" and "trace" (`RequestLogsAtDebug`).
 */
export function loggerOptions(options: CollectorOptions): FastifyServerOptions["logger"] {
  const { logLevel } = options;
  if (logLevel !== undefined && !(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new InvalidParameterError(
      `createCollector: logLevel must be one of ${LOG_LEVELS.join(", ")} (got ${JSON.stringify(logLevel)})`,
    );
  if (!options.logger && logLevel === undefined) return false;
  return { level: logLevel ?? "info", stream: options.logStream ?? process.stderr };
}

/**
 * Fastify's per-request lines ("incoming request", "request completed") at
 * debug rather than info, so "info" carries the collector's own events only.
 */
export class RequestLogsAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error)
      reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, "request errored");
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}

/**
 * `storage` whose round lifecycle is logged: one line `round opened` per round
 * created, one `round closed` when a close call closed it (not when it was
 * closed already). Other calls pass through. O(1) per call.
 */
export function loggedRounds(storage: CollectorStorage, app: { log: FastifyBaseLogger }): CollectorStorage {
  return new Proxy(storage, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (key === "createRound")
        return async (...args: Parameters<CollectorStorage["createRound"]>) => {
          const round = await target.createRound(...args);
          const campaign = round.request.campaign;
          app.log.info(
            { event: "round-opened", round: round.id, ...(campaign ? { campaign: campaign.id } : {}) },
            "round opened",
          );
          return round;
        };
      if (key === "closeRound")
        return async (...args: Parameters<CollectorStorage["closeRound"]>) => {
          const state = await target.closeRound(...args);
          if (state.closedAt === args[1].toISOString())
            app.log.info(
              { event: "round-closed", round: args[0].id, closedAt: state.closedAt },
              "round closed",
            );
          return state;
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
