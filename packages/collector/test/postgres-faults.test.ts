import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { expectUnavailable } from "./outage.js";
import { type OwnPostgres, postgresBinaries, startOwnPostgres } from "./own-postgres.js";
import { CollectorProcesses, call, describeWith, sleep, startMixedLoad } from "./support.js";

describeWith(
  postgresBinaries(),
  "PostgreSQL faults: the server restarted (immediate mode) under load",
  (binaries) => {
    let server: OwnPostgres | undefined;
    const processes = new CollectorProcesses();
    afterAll(async () => {
      await processes.killAll();
      server?.destroy();
    });

    it("two collectors survive two immediate restarts of PostgreSQL during 300,000 reports: each acknowledged report counted once", async () => {
      // Our own cluster (own port and data directory): the shared test server is never restarted.
      server = await startOwnPostgres(binaries.bin!);
      const [a, b] = await Promise.all([
        processes.spawn("postgres", server.url),
        processes.spawn("postgres", server.url),
      ]);
      const n = 300_000;
      const { load } = await startMixedLoad([a.url, b.url], n, 31, { concurrency: 16, retryForMs: 60_000 });
      const { acknowledged } = load;

      // Restart 1: pg_ctl restart -m immediate (every backend killed, crash recovery).
      await load.until(n / 4);
      const beforeFirst = acknowledged.size;
      server.restartImmediate();
      // Restart 2, in two steps so the outage can be observed: stop -m immediate ... start.
      await load.until(beforeFirst + n / 4);
      const beforeSecond = acknowledged.size;
      expect(beforeSecond).toBeLessThan(n);
      server.stopImmediate();
      for (const p of [a, b])
        await expectUnavailable(await fetch(`${p.url}/readyz`), {
          status: "unavailable",
          storage: "unavailable",
        });
      await sleep(1000); // the senders meet 503s and back off
      server.start();
      const result = await load.finish();
      console.log(
        `postgres faults: restarts after ${beforeFirst} and ${beforeSecond} of ${n} acknowledged; ${result.retries} retried attempts; ${result.duplicates} acknowledged again as duplicates; ${result.seconds.toFixed(1)} s`,
      );

      // Both collectors stayed up, and say so.
      for (const p of [a, b]) {
        expect(p.child.exitCode).toBeNull();
        const health = await call(`${p.url}/readyz`, "GET");
        expect(health).toMatchObject({ status: 200, body: { status: "ok", storage: "postgres" } });
      }
      const refused = await Promise.all(
        [a, b].map(async (p) => {
          const health = await call(`${p.url}/healthz`, "GET");
          return (health.body.refused as Record<string, number>)["storage-unavailable"]!;
        }),
      );
      // The outages were met (and refused with 503), then every batch was acknowledged.
      expect(refused[0]! + refused[1]!).toBeGreaterThan(0);
      expect(result.retries).toBeGreaterThan(0);
      expect(acknowledged.size).toBe(n);

      // Counted exactly once: n rows, n distinct ids, and they are the acknowledged ones.
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        const rows = await client.query(
          "SELECT count(*)::float8 AS rows, count(DISTINCT report_id)::float8 AS ids FROM calm_reports",
        );
        expect(rows.rows[0]).toEqual({ rows: n, ids: n });
        const present = await client.query(
          "SELECT count(*)::float8 AS present FROM calm_reports WHERE report_id = ANY($1::uuid[])",
          [[...acknowledged.keys()]],
        );
        expect(present.rows[0].present).toBe(n);
      } finally {
        await client.end();
      }
      // The per-view counts are those of the acknowledged reports (support counts: see postgres.test.ts).
      await load.expectCountedOnce(b.url);
    });
  },
);
