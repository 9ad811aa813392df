import type { WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { simulateUsers } from "../src/index.js";
import { type OwnPostgres, postgresBinaries, startOwnPostgres } from "./own-postgres.js";
import {
  type CollectorProcess,
  call,
  createRound,
  mixedRecords,
  roundBody,
  spawnCollector,
} from "./support.js";

const binaries = postgresBinaries();
if (binaries.unavailable)
  console.warn(
    `\n*** SKIPPED: PostgreSQL fault tests: PostgreSQL cannot be installed here: ${binaries.unavailable} ***\n`,
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(binaries.unavailable !== undefined)(
  "PostgreSQL faults: the server restarted (immediate mode) under load",
  () => {
    let server: OwnPostgres | undefined;
    const processes: CollectorProcess[] = [];
    afterAll(async () => {
      for (const p of processes) if (p.child.exitCode === null) await p.kill("SIGKILL");
      server?.destroy();
    });

    it("two collectors survive two immediate restarts of PostgreSQL during 300,000 reports: each acknowledged report counted once", async () => {
      // Our own cluster (own port and data directory): the shared test server is never restarted.
      server = await startOwnPostgres(binaries.bin!);
      const [a, b] = await Promise.all([
        spawnCollector("postgres", server.url),
        spawnCollector("postgres", server.url),
      ]);
      processes.push(a!, b!);
      const n = 300_000;
      const records = mixedRecords(n, 31);
      const { round, plan } = await createRound(a!.url, roundBody(records, 1, 2, n));

      const acknowledged = new Map<string, WireReport>();
      const load = simulateUsers({
        url: [a!.url, b!.url],
        round,
        plan,
        records,
        concurrency: 16,
        batchSize: 100,
        rng: seededRng(32),
        retryForMs: 60_000,
        onAcknowledged: (reports) => {
          for (const report of reports) acknowledged.set(report.id, report);
        },
      });
      const waitFor = async (count: number) => {
        for (let waited = 0; acknowledged.size < count && waited < 60_000; waited += 10) await sleep(10);
        expect(acknowledged.size).toBeGreaterThanOrEqual(count);
      };

      // Restart 1: pg_ctl restart -m immediate (every backend killed, crash recovery).
      await waitFor(n / 4);
      const beforeFirst = acknowledged.size;
      server.restartImmediate();
      // Restart 2, in two steps so the outage can be observed: stop -m immediate ... start.
      await waitFor(beforeFirst + n / 4);
      const beforeSecond = acknowledged.size;
      expect(beforeSecond).toBeLessThan(n);
      server.stopImmediate();
      for (const p of [a!, b!]) {
        const health = await fetch(`${p.url}/healthz`);
        expect(health.status).toBe(503);
        expect(health.headers.get("retry-after")).toBe("1");
        expect(await health.json()).toMatchObject({
          status: "unavailable",
          storage: "unavailable",
          reason: "storage-unavailable",
        });
      }
      await sleep(1000); // the senders meet 503s and back off
      server.start();
      const result = await load;
      console.log(
        `postgres faults: restarts after ${beforeFirst} and ${beforeSecond} of ${n} acknowledged; ${result.retries} retried attempts; ${result.duplicates} acknowledged again as duplicates; ${result.seconds.toFixed(1)} s`,
      );

      // Both collectors stayed up, and say so.
      for (const p of [a!, b!]) {
        expect(p.child.exitCode).toBeNull();
        const health = await call(`${p.url}/healthz`, "GET");
        expect(health).toMatchObject({ status: 200, body: { status: "ok", storage: "postgres" } });
      }
      const refused = await Promise.all(
        [a!, b!].map(async (p) => {
          const health = await call(`${p.url}/healthz`, "GET");
          return (health.body.refused as Record<string, number>)["storage-unavailable"]!;
        }),
      );
      // The outages were met (and refused with 503), then every batch was acknowledged.
      expect(refused[0]! + refused[1]!).toBeGreaterThan(0);
      expect(result.retries).toBeGreaterThan(0);
      expect(result).toMatchObject({ users: n, acknowledged: n, rejected: 0, unacknowledged: 0 });
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
      const status = await call(`${b!.url}/v1/rounds/${round}/status`, "GET");
      expect(status.body.accepted).toBe(n);
      const perView = new Array<number>(plan.views.length).fill(0);
      for (const report of acknowledged.values()) perView[report.view]!++;
      expect(status.body.perView).toEqual(perView);
    });
  },
);
