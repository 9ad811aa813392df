import pg from "pg";
import { afterAll, expect, it } from "vitest";
import type { RunningCollector } from "../src/index.js";
import { POSTGRES_SCHEMA_VERSION } from "../src/migrations/postgres.js";
import { openPostgresStorage } from "../src/postgres.js";
import { startCollector } from "../src/start-collector.js";
import { expectUnavailable } from "./outage.js";
import { type OwnPostgres, postgresBinaries, startOwnPostgres } from "./own-postgres.js";
import { call, describeWith, postgresServer, sleep, TOKEN, withPostgresDatabase } from "./support.js";

/** GET `url` until it answers `status` (at most 20 s; then the last status is returned). */
async function until(url: string, status: number): Promise<number> {
  let last = 0;
  for (let waited = 0; waited < 20_000; waited += 100) {
    last = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (last === status) return last;
    await sleep(100);
  }
  return last;
}

describeWith(
  postgresBinaries(),
  "readiness: /readyz while PostgreSQL is stopped and started again",
  (binaries) => {
    let server: OwnPostgres | undefined;
    let collector: RunningCollector | undefined;
    afterAll(async () => {
      await collector?.close().catch(() => undefined);
      server?.destroy();
    });

    it("/readyz is 200, 503 storage-unavailable while the server is stopped (/healthz stays 200), 200 once it is back", async () => {
      // Our own cluster: the shared test server is never stopped.
      server = await startOwnPostgres(binaries.bin!);
      const storage = await openPostgresStorage(server.url, { connectTimeoutMs: 1000 });
      collector = await startCollector({ storage, adminToken: TOKEN, log: () => undefined });
      const ready = await call(`${collector.url}/readyz`, "GET", undefined, undefined);
      expect(ready).toMatchObject({
        status: 200,
        body: { status: "ok", storage: "postgres", schemaVersion: POSTGRES_SCHEMA_VERSION },
      });

      server.stopImmediate();
      await expectUnavailable(await fetch(`${collector.url}/readyz`), {
        status: "unavailable",
        storage: "unavailable",
        backend: "postgres",
      });
      expect(await call(`${collector.url}/healthz`, "GET", undefined, undefined)).toMatchObject({
        status: 200,
        body: { status: "ok", storageAvailable: false },
      });

      server.start();
      expect(await until(`${collector.url}/readyz`, 200)).toBe(200);
      expect(await call(`${collector.url}/healthz`, "GET", undefined, undefined)).toMatchObject({
        body: { storageAvailable: true },
      });
    });
  },
);

describeWith(postgresServer(), "readiness: the schema version", (service) => {
  it("/readyz is 503 schema-version while the database carries another version than the collector's, 200 again after", async () => {
    await withPostgresDatabase(service.url!, "readyz_version", async (url) => {
      const collector = await startCollector({
        storage: await openPostgresStorage(url),
        adminToken: TOKEN,
        log: () => undefined,
      });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        // A newer collector migrated the shared database meanwhile.
        await client.query(`UPDATE calm_schema_version SET version = ${POSTGRES_SCHEMA_VERSION + 1}`);
        const response = await fetch(`${collector.url}/readyz`);
        expect(response.status).toBe(503);
        expect(await response.json()).toMatchObject({
          reason: "schema-version",
          schemaVersion: POSTGRES_SCHEMA_VERSION + 1,
          expectedSchemaVersion: POSTGRES_SCHEMA_VERSION,
        });
        await client.query(`UPDATE calm_schema_version SET version = ${POSTGRES_SCHEMA_VERSION}`);
        expect((await fetch(`${collector.url}/readyz`)).status).toBe(200);
      } finally {
        await client.end();
        await collector.close();
      }
    });
  });
});
