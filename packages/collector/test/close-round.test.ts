import { join } from "node:path";
import type { CalmPlan } from "@calm-ldp/calm-core";
import type { WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { DuckDBInstance } from "@duckdb/node-api";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openClickHouseStorage } from "../src/clickhouse.js";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type CollectorStorage, createCollector, RoundClosedError } from "../src/index.js";
import { openPostgresStorage } from "../src/postgres.js";
import { onEveryShard, withClickhouseDatabase } from "./clickhouse-cluster.js";
import {
  clickhouseCluster,
  mixedRecords,
  postgresServer,
  reportsOf,
  roundBody,
  suiteTempDir,
  TOKEN,
  withPostgresDatabase,
  withTempDir,
} from "./support.js";

/** A backend under test: how to open it, and (raw SQL, beside the storage) the report and support rows a round holds. */
interface Backend {
  open(): Promise<CollectorStorage>;
  /** ClickHouse: a round qualifies for the drop only two request timeouts after its close. */
  readonly settles?: boolean;
  rowsHeld(roundNo: number): Promise<{ reports: number; support: number }>;
}

const N = 3000;
const records = mixedRecords(N + 200, 17);

/**
 * The closing contract, through the HTTP API on one backend: reports stored in two
 * rounds; round A closed (admin), a retry and new reports for it refused with 409
 * round-closed (counted), round B untouched; after the storage is reopened A is
 * still closed; its ids dropped: no report row left, yet status and every marginal
 * (both estimators) answer exactly as before, and B still takes reports.
 */
async function closingContract(backend: Backend): Promise<void> {
  const held = async (no: number) => {
    const rows = await backend.rowsHeld(no);
    const ids = await storage.heldIds((await storage.findRound(a.round))!);
    expect(ids).toBe(rows.reports);
    return rows;
  };
  let storage = await backend.open();
  let app = await createCollector({ storage, adminToken: TOKEN, idRetentionMs: 3_600_000 });
  const admin = { authorization: `Bearer ${TOKEN}` };
  const inject = async (method: "GET" | "POST", url: string, payload?: unknown) => {
    const response = await app.inject({ method, url, headers: admin, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.json() as Record<string, unknown> };
  };
  const open = async () => {
    const created = await inject("POST", "/v1/rounds", roundBody(records, 1, 2, N));
    expect(created.status).toBe(201);
    return { round: created.body.round as string, plan: created.body.plan as CalmPlan };
  };
  const a = await open();
  const b = await open();
  const rng = seededRng(18);
  const reportsFrom = (plan: CalmPlan, from: number, to: number) =>
    reportsOf(plan, records, from, to - from, rng);
  const post = (round: string, reports: WireReport[]) =>
    inject("POST", `/v1/rounds/${round}/reports`, { round, reports });
  const sentA = reportsFrom(a.plan, 0, N);
  for (let i = 0; i < N; i += 500) expect((await post(a.round, sentA.slice(i, i + 500))).status).toBe(200);
  expect((await post(b.round, reportsFrom(b.plan, 0, 100))).status).toBe(200);
  expect((await post(a.round, sentA.slice(0, 5))).body).toEqual({
    acknowledged: 5,
    stored: 0,
    duplicates: 5,
  });

  const queries = ["q0,q1", "q2,q5", "q0,q2,q5", "q1,q3,q4,q6"];
  const answers = async (round: string) => {
    const out: unknown[] = [];
    for (const attrs of queries)
      for (const estimator of ["calm", "calm-plus"]) {
        const answer = await inject(
          "GET",
          `/v1/rounds/${round}/marginals?attrs=${attrs}&estimator=${estimator}`,
        );
        expect(answer.status).toBe(200);
        out.push(answer.body);
      }
    return out;
  };
  const before = await inject("GET", `/v1/rounds/${a.round}/status`);
  expect(before.body).toMatchObject({ accepted: N, duplicates: 5, closedAt: null, idsDroppedAt: null });
  const answersBefore = await answers(a.round);
  const roundNo = (await storage.findRound(a.round))!.no;
  const heldBefore = await held(roundNo);
  expect(heldBefore.reports).toBe(N);
  expect(heldBefore.support).toBeGreaterThanOrEqual(N);
  expect(before.body.idsHeld).toBe(N);

  const planOf = async (round: string) =>
    (await app.inject({ method: "GET", url: `/v1/rounds/${round}/plan` })).json() as Record<string, unknown>;
  expect((await planOf(a.round)).closedAt).toBeNull();
  // Close A (twice: idempotent, the first time stays).
  const closed = await inject("POST", `/v1/rounds/${a.round}/close`);
  expect(closed.status).toBe(200);
  expect(closed.body).toMatchObject({ round: a.round, idsDroppedAt: null });
  const closedAt = Date.parse(closed.body.closedAt as string);
  expect(Date.parse(closed.body.idsDropAfter as string) - closedAt).toBe(3_600_000);
  expect((await inject("POST", `/v1/rounds/${a.round}/close`)).body.closedAt).toBe(closed.body.closedAt);
  expect((await inject("POST", `/v1/rounds/${a.round}/close`, undefined)).status).toBe(200);
  const unauthorised = await app.inject({ method: "POST", url: `/v1/rounds/${a.round}/close` });
  expect(unauthorised.statusCode).toBe(401);

  // Clients can see it on the plan endpoint.
  expect(await planOf(a.round)).toMatchObject({ round: a.round, closedAt: closed.body.closedAt });
  expect((await planOf(b.round)).closedAt).toBeNull();
  // A retry (known ids) and new reports: 409 round-closed, counted by reason; B still open.
  const retry = await post(a.round, sentA.slice(0, 7));
  expect(retry.status).toBe(409);
  expect(retry.body).toMatchObject({ statusCode: 409, reason: "round-closed" });
  expect(retry.body.message).toMatch(/round .* is closed/);
  expect((await post(a.round, reportsFrom(a.plan, N, N + 3))).body.reason).toBe("round-closed");
  expect((await post(b.round, reportsFrom(b.plan, 100, 150))).status).toBe(200);
  const roundA = (await storage.findRound(a.round))!;
  const fresh = { id: "0f8fad5b-d9cb-469f-a165-70867728950e", view: 0, cells: [0] };
  await expect(storage.storeReports(roundA, [fresh])).rejects.toThrow(RoundClosedError);

  // Reopened, the round is still closed; the ids are still there until the sweep.
  await app.close();
  await storage.close();
  storage = await backend.open();
  app = await createCollector({ storage, adminToken: TOKEN, idRetentionMs: 3_600_000 });
  expect((await post(a.round, sentA.slice(10, 12))).body.reason).toBe("round-closed");
  expect(await held(roundNo)).toEqual(heldBefore);
  // A sweep with a cut-off before the close drops nothing.
  expect(await storage.dropClosedIds(new Date(closedAt - 1000), new Date())).toEqual([]);
  expect(await held(roundNo)).toEqual(heldBefore);

  if (backend.settles) {
    const soon = new Date(closedAt + 1000);
    expect(await storage.dropClosedIds(soon, soon)).toEqual([]);
    expect(await held(roundNo)).toEqual(heldBefore);
  }
  // The sweep after the retention window: A's ids go, its counts stay.
  const droppedAt = new Date(closedAt + 3_600_000);
  expect(await storage.dropClosedIds(droppedAt, droppedAt)).toEqual([a.round]);
  expect(await storage.dropClosedIds(droppedAt, droppedAt)).toEqual([]);
  expect(await held(roundNo)).toEqual({ reports: 0, support: 0 });
  const after = await inject("GET", `/v1/rounds/${a.round}/status`);
  expect(after.body).toEqual({
    ...before.body,
    rejected: { "round-closed": 12 },
    closedAt: closed.body.closedAt,
    idsDroppedAt: droppedAt.toISOString(),
    idsDropAfter: closed.body.idsDropAfter, // closing time + retention, as the close answer said
    idsHeld: 0,
  });
  expect(await answers(a.round)).toEqual(answersBefore);
  expect((await post(a.round, sentA.slice(0, 1))).body.reason).toBe("round-closed");
  // B: untouched, still open.
  const statusB = await inject("GET", `/v1/rounds/${b.round}/status`);
  expect(statusB.body).toMatchObject({ accepted: 150, closedAt: null, idsDroppedAt: null });
  expect((await post(b.round, reportsFrom(b.plan, 150, 160))).status).toBe(200);
  await app.close();
  await storage.close();
}

describe("closing a round: counts kept, ids dropped after the retention window, late reports 409", () => {
  it("DuckDB", async () => {
    await withTempDir(async (dir) => {
      const file = join(dir, "close.duckdb");
      await closingContract({ open: () => openDuckDbStorage(file), rowsHeld: (no) => duckRows(file, no) });
    });
  });

  const server = postgresServer();
  it.skipIf(server.unavailable !== undefined)("PostgreSQL", async () => {
    await withPostgresDatabase(server.url!, "close", async (url) => {
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      try {
        await closingContract({
          open: () => openPostgresStorage(url),
          rowsHeld: async (no) => {
            // Support: older per-cell rows plus the per-view counts plus the deltas not folded yet.
            const [reports, support] = await Promise.all(
              [
                "SELECT count(*)::int AS n FROM calm_reports WHERE round_no = $1",
                `SELECT ((SELECT count(*) FROM calm_support WHERE round_no = $1)
                   + (SELECT coalesce(sum(n), 0) FROM calm_support_views, unnest(counts) AS n WHERE round_no = $1)
                   + (SELECT coalesce(sum(n), 0) FROM calm_support_deltas, unnest(counts) AS n WHERE round_no = $1))::int AS n`,
              ].map(async (sql) => (await probe.query(sql, [no])).rows[0].n as number),
            );
            return { reports: reports!, support: support! };
          },
        });
      } finally {
        await probe.end().catch(() => undefined);
      }
    });
  });

  const cluster = clickhouseCluster();
  it.skipIf(cluster.unavailable !== undefined)("ClickHouse (two shards)", async () => {
    await withClickhouseDatabase(cluster.url ?? "", "close", async (url, database) => {
      await closingContract({
        open: () => openClickHouseStorage(url),
        settles: true,
        rowsHeld: async (no) => {
          // ALTER TABLE ... DELETE is a mutation: wait (up to 60 s) until it has run on every shard.
          // ClickHouse keeps a report's cells in its row: support rows are the cells of the rows.
          const count = async (what: string) =>
            (await onEveryShard(url, `SELECT ${what} FROM ${database}.calm_reports WHERE round_no = ${no}`))
              .map(Number)
              .reduce((s, x) => s + x, 0);
          const pending = async () =>
            (
              await onEveryShard(
                url,
                `SELECT count() FROM system.mutations WHERE database = '${database}' AND is_done = 0`,
              )
            )
              .map(Number)
              .reduce((s, x) => s + x, 0);
          for (let waited = 0; waited < 60_000 && (await pending()) > 0; waited += 100)
            await new Promise((resolve) => setTimeout(resolve, 100));
          return { reports: await count("count()"), support: await count("sum(length(cells))") };
        },
      });
    });
  });
});

/**
 * Report rows and supported cells (older per-cell rows, group counts and the reports' cell bits) of a round in a DuckDB file, read by a second, read-only
 * instance opened for the look (it replays the committed write-ahead log).
 */
async function duckRows(file: string, no: number): Promise<{ reports: number; support: number }> {
  const instance = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" });
  const connection = await instance.connect();
  try {
    const count = async (table: string) =>
      Number(
        (
          await connection.runAndReadAll(`SELECT count(*)::INTEGER FROM ${table} WHERE round_no = $1`, [no])
        ).getRows()[0]![0],
      );
    const support = await connection.runAndReadAll(
      `SELECT (SELECT count(*) FROM calm_support WHERE round_no = $1)
         + (SELECT coalesce(sum(count), 0) FROM calm_support_counts WHERE round_no = $1)
         + (SELECT coalesce(sum(bit_count(cell_bits)), 0) FROM calm_reports WHERE round_no = $1)`,
      [no],
    );
    return { reports: await count("calm_reports"), support: Number(support.getRows()[0]![0]) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("the retention sweep", () => {
  const dir = suiteTempDir();
  it("drops a closed round's ids by itself once idRetentionMs has passed, and refuses a negative retention", async () => {
    const storage = await openDuckDbStorage(join(dir, "sweep.duckdb"));
    await expect(createCollector({ storage, adminToken: TOKEN, idRetentionMs: -1 })).rejects.toThrow(
      /idRetentionMs must be an integer >= 0/,
    );
    const app = await createCollector({ storage, adminToken: TOKEN, idRetentionMs: 300 });
    const headers = { authorization: `Bearer ${TOKEN}` };
    try {
      const created = await app.inject({
        method: "POST",
        url: "/v1/rounds",
        headers,
        payload: roundBody(records, 1, 2, 1000),
      });
      expect(created.statusCode, created.body).toBe(201);
      const { round, plan } = created.json() as { round: string; plan: CalmPlan };
      const rng = seededRng(3);
      const reports = reportsOf(plan, records, 0, 50, rng);
      const stored = await app.inject({
        method: "POST",
        url: `/v1/rounds/${round}/reports`,
        payload: { round, reports },
      });
      expect(stored.statusCode).toBe(200);
      const status = async () =>
        (await app.inject({ method: "GET", url: `/v1/rounds/${round}/status`, headers })).json() as Record<
          string,
          unknown
        >;
      expect(await status()).toMatchObject({ accepted: 50, idsHeld: 50, idsDroppedAt: null });
      await app.inject({ method: "POST", url: `/v1/rounds/${round}/close`, headers });
      // Not before the retention window...
      expect(await status()).toMatchObject({ idsHeld: 50, idsDroppedAt: null });
      // ...but within a few sweeps (every 250 ms at least) after it.
      const started = Date.now();
      while ((await status()).idsDroppedAt === null && Date.now() - started < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await status()).toMatchObject({ accepted: 50, idsHeld: 0 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    } finally {
      await app.close();
      await storage.close();
    }
  });
});
