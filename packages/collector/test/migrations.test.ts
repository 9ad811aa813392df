import { join } from "node:path";
import type { CalmPlan } from "@calm-ldp/calm-core";
import { DuckDBInstance } from "@duckdb/node-api";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { CollectorStorage, StoredRound } from "../src/api.js";
import { planRound } from "../src/create-round.js";
import { openDuckDbStorage } from "../src/duckdb.js";
import { DUCKDB_SCHEMA_VERSION } from "../src/migrations/duckdb.js";
import { POSTGRES_SCHEMA_VERSION } from "../src/migrations/postgres.js";
import { checkHistory, SchemaVersionError } from "../src/migrations/runner.js";
import { openPostgresStorage } from "../src/postgres.js";
import { DUCKDB_LAYOUTS, POSTGRES_LAYOUTS } from "./fixtures/layouts.js";
import {
  acceptedReport,
  describeWith,
  fixedId,
  postgresServer,
  suiteTempDir,
  withPostgresDatabase,
} from "./support.js";

const ROUND = fixedId(4242);
const REPORTS = 40;

/** A round of a small plan, and the reports an earlier version stored: report i in view i mod m, cell i mod cells. */
function fixtureRound(): {
  round: Omit<StoredRound, "no">;
  reports: { id: string; view: number; cell: number }[];
} {
  const round = planRound(
    {
      schema: { attributes: [2, 3, 2, 2].map((cardinality, i) => ({ name: `a${i}`, cardinality })) },
      eps: 1,
      k: 2,
      n: 1000,
    },
    new Date("2026-01-01T00:00:00Z"),
  );
  const plan = round.plan as CalmPlan;
  const reports = Array.from({ length: REPORTS }, (_, i) => {
    const view = i % plan.m;
    return { id: fixedId(i + 1), view, cell: i % plan.views[view]!.cells };
  });
  return { round: { ...round, id: ROUND }, reports };
}

/** The support counts the fixture's reports make: per view, per cell. */
function expectedSupport(plan: CalmPlan, reports: ReturnType<typeof fixtureRound>["reports"]): number[][] {
  const support = plan.views.map((view) => new Array<number>(view.cells).fill(0));
  for (const { view, cell } of reports) support[view]![cell]!++;
  return support;
}

/** The statements that put the fixture into a database of `version` (whose support table that version used). */
function fixtureRows(backend: "duckdb" | "postgres", version: number): string[] {
  const { round, reports } = fixtureRound();
  const plan = round.plan as CalmPlan;
  const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
  const roundRow =
    backend === "duckdb"
      ? `INSERT INTO calm_rounds VALUES (nextval('calm_round_no'), '${ROUND}', '${round.createdAt}', ${quote(JSON.stringify(plan))}, ${quote(JSON.stringify(round.request))})`
      : `INSERT INTO calm_rounds (round_id, created_at, plan, request) VALUES ('${ROUND}', '${round.createdAt}', ${quote(JSON.stringify(plan))}, ${quote(JSON.stringify(round.request))})`;
  const rows = [
    roundRow,
    `INSERT INTO calm_reports (round_no, report_id, view) VALUES ${reports.map((r) => `(1, '${r.id}', ${r.view})`).join(", ")}`,
    "INSERT INTO calm_counters VALUES (1, 'duplicates', 3), (1, 'rejected:schema', 2)",
  ];
  const support = expectedSupport(plan, reports);
  const cells = support.flatMap((counts, view) => counts.map((count, cell) => ({ view, cell, count })));
  const countsTable = backend === "duckdb" ? version >= 5 : version === 3;
  if (backend === "postgres" && version >= 4)
    rows.push(
      `INSERT INTO calm_support_views VALUES ${support.map((counts, view) => `(1, ${view}, 12345, ARRAY[${counts.join(",")}]::bigint[])`).join(", ")}`,
    );
  else if (countsTable)
    rows.push(
      `INSERT INTO calm_support_counts VALUES ${cells
        .filter((c) => c.count > 0)
        .map((c) => `(1, ${c.view}, ${c.cell}, ${c.count})`)
        .join(", ")}`,
    );
  else
    rows.push(
      `INSERT INTO calm_support VALUES ${reports.map((r) => `(1, ${r.view}, ${r.cell})`).join(", ")}`,
    );
  return rows;
}

/** The migrated storage holds the fixture exactly, takes new reports (de-duplicated against old ids), and says what it did. */
async function expectFixtureKept(storage: CollectorStorage): Promise<void> {
  const { round: made, reports } = fixtureRound();
  const plan = made.plan as CalmPlan;
  const round = (await storage.findRound(ROUND))!;
  expect(round.plan).toEqual(plan);
  const perView = new Array<number>(plan.m).fill(0);
  for (const { view } of reports) perView[view]!++;
  expect(await storage.counts(round)).toEqual({
    accepted: REPORTS,
    duplicates: 3,
    rejected: { schema: 2 },
    perView,
    dropped: {},
  });
  // Dropped-report counts (the unary check's) live in every layout's counters table: no step needed.
  const dropped = perView.map((_, v) => (v === plan.m - 1 ? 2 : 0));
  await storage.countDropped!(round, "unary-count", dropped);
  expect((await storage.counts(round)).dropped).toEqual({ "unary-count": dropped });
  const support = await storage.supportCounts(round);
  expect(support.support.map((cells) => Array.from(cells))).toEqual(expectedSupport(plan, reports));
  // An old id is still known; a new one is stored.
  expect(
    await storage.storeReports(round, [
      acceptedReport(1, reports[0]!.view, [reports[0]!.cell]),
      acceptedReport(999, 0, [0]),
    ]),
  ).toEqual({ stored: 1, duplicates: 1 });
  // The metrics' totals (one statement) see the migrated tables too.
  expect(await storage.roundTotals!()).toEqual({ rounds: 1, open: 1, held: REPORTS + 1 });
}

describe("DuckDB schema migrations from every earlier layout", () => {
  const dir = suiteTempDir();
  const fill = async (file: string, statements: string[]) => {
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    for (const statement of statements) await connection.run(statement);
    connection.closeSync();
    instance.closeSync();
  };

  for (let version = 1; version < DUCKDB_SCHEMA_VERSION; version++)
    it(`version ${version} -> ${DUCKDB_SCHEMA_VERSION}: one step per version, data kept, then current`, async () => {
      const file = join(dir, `v${version}.duckdb`);
      await fill(file, [...DUCKDB_LAYOUTS[version - 1]!.statements, ...fixtureRows("duckdb", version)]);
      let storage = await openDuckDbStorage(file);
      expect(storage.schemaMigration).toMatchObject({
        backend: "duckdb",
        from: version,
        to: DUCKDB_SCHEMA_VERSION,
      });
      expect(storage.schemaMigration!.steps).toHaveLength(DUCKDB_SCHEMA_VERSION - version);
      await expectFixtureKept(storage);
      await storage.close();
      storage = await openDuckDbStorage(file);
      expect(storage.schemaMigration).toEqual({
        backend: "duckdb",
        from: DUCKDB_SCHEMA_VERSION,
        to: DUCKDB_SCHEMA_VERSION,
        steps: [],
      });
      await storage.close();
    });

  it("an empty file gets the current layout; a file of a newer collector is refused with a clear error", async () => {
    const file = join(dir, "newer.duckdb");
    const storage = await openDuckDbStorage(file);
    expect(storage.schemaMigration).toMatchObject({ from: 0, to: DUCKDB_SCHEMA_VERSION });
    await storage.close();
    await fill(file, [`UPDATE calm_schema_version SET version = ${DUCKDB_SCHEMA_VERSION + 1}`]);
    const refused = openDuckDbStorage(file);
    await expect(refused).rejects.toThrow(SchemaVersionError);
    await expect(refused).rejects.toThrow(
      `the duckdb database's schema is version ${DUCKDB_SCHEMA_VERSION + 1}, newer than version ${DUCKDB_SCHEMA_VERSION}`,
    );
    // Refusing it changed nothing: the file opens as it was.
    await fill(file, [`UPDATE calm_schema_version SET version = ${DUCKDB_SCHEMA_VERSION}`]);
    await (await openDuckDbStorage(file)).close();
  });

  it("a schema history without one step per version is refused before anything runs (a broken variant)", () => {
    const step = (to: number) => ({ to, what: "", run: async () => undefined });
    const history = { backend: "test", current: 4, create: [], inferVersion: async () => 1 };
    expect(() => checkHistory({ ...history, steps: [step(2), step(3), step(4)] })).not.toThrow();
    expect(() => checkHistory({ ...history, steps: [step(2), step(4)] })).toThrow(
      /steps to versions \[2,4\]/,
    );
  });
});

describeWith(postgresServer(), "PostgreSQL schema migrations from every earlier layout", (service) => {
  for (let version = 1; version < POSTGRES_SCHEMA_VERSION; version++)
    it(`version ${version} -> ${POSTGRES_SCHEMA_VERSION}: one step per version, data kept, then current`, async () => {
      await withPostgresDatabase(service.url!, `layout_v${version}`, async (url) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(POSTGRES_LAYOUTS[version - 1]!.statements.join(";\n"));
          for (const statement of fixtureRows("postgres", version)) await client.query(statement);
        } finally {
          await client.end();
        }
        let storage = await openPostgresStorage(url);
        expect(storage.schemaMigration).toMatchObject({ from: version, to: POSTGRES_SCHEMA_VERSION });
        expect(storage.schemaMigration!.steps).toHaveLength(POSTGRES_SCHEMA_VERSION - version);
        await expectFixtureKept(storage);
        await storage.close();
        storage = await openPostgresStorage(url);
        expect(storage.schemaMigration).toMatchObject({ from: POSTGRES_SCHEMA_VERSION, steps: [] });
        await storage.close();
      });
    });

  it("a database of a newer collector is refused with a clear error", async () => {
    await withPostgresDatabase(service.url!, "layout_newer", async (url) => {
      await (await openPostgresStorage(url)).close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`UPDATE calm_schema_version SET version = ${POSTGRES_SCHEMA_VERSION + 1}`);
      await client.end();
      await expect(openPostgresStorage(url)).rejects.toThrow(
        new SchemaVersionError("postgres", POSTGRES_SCHEMA_VERSION + 1, POSTGRES_SCHEMA_VERSION).message,
      );
    });
  });
});
