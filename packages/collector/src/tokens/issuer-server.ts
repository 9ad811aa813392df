import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import { CorsPolicy } from "../cors.js";
import { RequestRejectedError } from "../errors.js";
import { remoteRoundLookup } from "./issuer-rounds.js";
import { registerIssuer } from "./issuer-routes.js";
import { registerKeyDirectory } from "./key-directory.js";
import { pruneOnSchedule } from "./ledger-prune.js";
import type { TokenProtection } from "./protection.js";
import { issuerState, ledgerPruneEvery } from "./routes.js";
import { keyringSource } from "./token-gate.js";

/** Options of {@link startIssuer}: the issuer's own (attester, keys) and the collector whose rounds it serves. */
export interface IssuerOptions extends Omit<TokenProtection, "issuerUrl"> {
  /** The collector's base URL: rounds, campaigns and their state are read from its public API. */
  readonly collectorUrl: string;
  /** Interface to listen on (default "127.0.0.1"). */
  readonly host?: string;
  /** TCP port (default 0: any free port; see `url`). */
  readonly port?: number;
  /** Origins whose pages may ask for tokens (CORS), as the collector's `allowOrigins`. */
  readonly allowOrigins?: readonly string[];
  /** Clients' addresses from X-Forwarded-For of these proxies (Fastify's `trustProxy`), for the address attester. */
  readonly trustProxy?: string;
  /** For tests: how the issuer calls the collector (default global fetch). */
  readonly fetch?: typeof fetch;
  /** Where the issuer writes its operational lines (the scheduled ledger prune's; default stderr). */
  readonly log?: (line: string) => void;
}

/** A listening issuer. */
export interface RunningIssuer {
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * The token issuer as its own server, apart from the collector (another process,
 * another operator, its own keys in `keyDir`): the token routes of
 * issuer-routes.ts over the collector's public round API; the collector runs
 * with `tokens: { issuerUrl }` and verifies with this issuer's public keys. The
 * attester's identities, the quota ledger and the private keys stay here; the
 * collector sees only tokens. Errors are JSON `{statusCode, reason, message}`.
 */
export async function startIssuer(options: IssuerOptions): Promise<RunningIssuer> {
  const state = issuerState(options);
  const app = Fastify({
    logger: false,
    ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
  });
  const send = (reply: FastifyReply, statusCode: number, reason: string, message: string) =>
    reply.code(statusCode).send({ statusCode, reason, message });
  app.setErrorHandler(
    async (error: Error & { validation?: unknown; statusCode?: number }, _request, reply) => {
      if (error instanceof RequestRejectedError)
        return send(reply, error.statusCode, error.reason, error.message);
      if (error.validation) return send(reply, 400, "schema", error.message);
      if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500)
        return send(reply, error.statusCode, "malformed-request", error.message);
      return send(reply, 500, "internal", "internal error");
    },
  );
  app.setNotFoundHandler((_request, reply) => send(reply, 404, "not-found", "no such endpoint"));
  const rounds = remoteRoundLookup(options.collectorUrl, options.fetch);
  const cors = new CorsPolicy(options.allowOrigins ?? []);
  const refusePreflight = (reply: FastifyReply) =>
    send(reply, 403, "cross-origin-refused", "this origin may not call the issuer");
  registerIssuer({ app, cors, refusePreflight, rounds, ...state });
  registerKeyDirectory({ app, cors, refusePreflight, rounds, keys: keyringSource(state.keyring) });
  // The scheduled ledger prune's lines to `log` (default stderr).
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  pruneOnSchedule(
    app,
    { ledger: state.ledger, rounds, everyMs: ledgerPruneEvery(options) },
    {
      pruned: (_, line) => line && log(line),
      failed: (error) => log(`token quota ledger: prune failed (${String(error)}); retrying at the next`),
    },
  );
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : (options.port ?? 0);
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    app,
    close: () => app.close(),
  };
}
