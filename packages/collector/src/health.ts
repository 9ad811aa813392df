import type { FastifyReply } from "fastify";
import type { SchemaVersionCheck } from "./api.js";
import type { CollectorContext } from "./collector-context.js";
import { StorageError } from "./errors.js";
import { RETRY_AFTER_SECONDS } from "./storage-health.js";

/** Requests refused since start, by reason: an object of integers. */
const REFUSED = {
  type: "object",
  description: "Requests refused since this process started, by reason",
  additionalProperties: { type: "integer" },
} as const;

/** The schema of a 200 answer `{status: "ok", ...fields, refused}`, every property required. */
function okAnswer(fields: Record<string, object>) {
  const properties = { status: { type: "string", enum: ["ok"] }, ...fields, refused: REFUSED };
  return { type: "object", required: Object.keys(properties), properties } as const;
}

/** The 503 body of `/readyz`: the error body plus what failed. */
const UNREADY = {
  type: "object",
  required: ["statusCode", "reason", "message", "status"],
  properties: {
    statusCode: { type: "integer" },
    reason: { type: "string", enum: ["storage-unavailable", "schema-version"] },
    message: { type: "string" },
    status: { type: "string", enum: ["unavailable"] },
    storage: {
      type: "string",
      description: '"unavailable", or the backend when its schema is the wrong version',
    },
    backend: { type: "string" },
    schemaVersion: { type: ["integer", "null"] },
    expectedSchemaVersion: { type: ["integer", "null"] },
    refused: REFUSED,
  },
} as const;

/**
 * `GET /healthz` (liveness) and `GET /readyz` (readiness) of a collector.
 *
 * - `/healthz`: 200 `{status: "ok", storage, storageAvailable, refused}` whenever
 *   the process answers HTTP; it does not call the database (`storageAvailable`
 *   is the outcome of the last storage call). A load balancer or orchestrator
 *   restarts a process only when this fails (a database outage is no reason to).
 * - `/readyz`: 200 `{status: "ok", storage, schemaVersion, refused}` when the
 *   database answers, takes a write (DuckDB: a probe row committed through the
 *   writer; PostgreSQL: an `UPDATE` of the version row; ClickHouse: every shard
 *   answers, no write) and its schema is the version this collector writes; else
 *   503 with `Retry-After` and `reason` `storage-unavailable` or `schema-version`.
 *   Route traffic only to ready collectors. Cost: one or two database round trips.
 */
export function registerHealth({ app, storage, health, refusals }: CollectorContext): void {
  const refused = () => ({
    ...Object.fromEntries([...refusals].sort(([a], [b]) => (a < b ? -1 : 1))),
    "storage-unavailable": health.refused,
  });
  app.get(
    "/healthz",
    {
      schema: {
        summary: "Liveness: 200 while the process answers (the database is not called)",
        response: {
          200: okAnswer({
            storage: { type: "string", description: "the storage backend" },
            storageAvailable: { type: "boolean", description: "outcome of the last storage call" },
          }),
        },
      },
    },
    async () => ({
      status: "ok",
      storage: storage.backend,
      storageAvailable: health.available,
      refused: refused(),
    }),
  );
  const unready = (reply: FastifyReply, body: Record<string, unknown>) =>
    reply
      .code(503)
      .header("retry-after", String(RETRY_AFTER_SECONDS))
      .send({
        statusCode: 503,
        status: "unavailable",
        backend: storage.backend,
        refused: refused(),
        ...body,
      });
  app.get(
    "/readyz",
    {
      schema: {
        summary: "Readiness: 200 when the database answers, takes a write and has the current schema",
        response: {
          200: okAnswer({
            storage: { type: "string" },
            schemaVersion: { type: ["integer", "null"], description: "null: the storage keeps no version" },
          }),
          503: UNREADY,
        },
      },
    },
    async (_request, reply) => {
      let check: SchemaVersionCheck | undefined;
      try {
        if (storage.ready) check = await storage.ready();
        else await storage.ping();
      } catch (error) {
        if (!(error instanceof StorageError)) throw error;
        return unready(reply, {
          reason: "storage-unavailable",
          message: `the database is unavailable: ${error.message}`,
          storage: "unavailable",
        });
      }
      if (check !== undefined && check.found !== check.expected)
        return unready(reply, {
          reason: "schema-version",
          message: `the database's schema is version ${check.found}; this collector writes version ${check.expected} (run \`calm-ldp collector migrate\` with the newer collector)`,
          storage: storage.backend,
          schemaVersion: check.found,
          expectedSchemaVersion: check.expected,
        });
      return {
        status: "ok",
        storage: storage.backend,
        schemaVersion: check?.found ?? null,
        refused: refused(),
      };
    },
  );
}
