import { createHash } from "node:crypto";
import { type CalmPlan, planCalm } from "@calm-ldp/calm-core";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { expect, it } from "vitest";
import type { CollectorStorage } from "../src/api.js";
import { openClickHouseStorage, parseClickHouseUrl, shardOf } from "../src/clickhouse.js";
import { CLICKHOUSE_SCHEMA_VERSION, reportsTable } from "../src/migrations/clickhouse.js";
import { REPORT_MARK } from "../src/storage/clickhouse/write-offs.js";
import { onEveryShard, suiteClickhouseDatabase, withClickhouseDatabase } from "./clickhouse-cluster.js";
import { CLICKHOUSE_LAYOUTS } from "./fixtures/layouts.js";
import { acceptedReport, clickhouseCluster, describeWith, fixedId, roundToStore } from "./support.js";

const plan = planCalm({ schema: uniformSchema(4, 2), eps: 1, k: 2, n: 1000 });
const OPEN = fixedId(4242);
const DROPPED = fixedId(4343);
/** A layout 1/2 round's number: 48 bits of SHA-256 of its id (as those layouts and this one make it). */
const numberOf = (id: string) =>
  Number.parseInt(createHash("sha256").update(id).digest("hex").slice(0, 12), 16);

/** `count` reports from id `first`: report i in view i mod m, supporting cell i mod its cells. */
function fixtureReports(first: number, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const view = (first + i) % plan.m;
    return { id: fixedId(first + i), view, cell: (first + i) % plan.views[view]!.cells };
  });
}
type Report = ReturnType<typeof fixtureReports>[number];

/** Per view, per cell, the reports supporting it. */
function support(reports: readonly Report[]): number[][] {
  const counts = plan.views.map((view) => new Array<number>(view.cells).fill(0));
  for (const r of reports) counts[r.view]![r.cell]!++;
  return counts;
}

/** The cluster holding `layout`'s tables and rows as a collector of that version left them. */
async function writeLayout(url: string, layout: 1 | 2 | 3) {
  const { database: db, cluster, shards } = parseClickHouseUrl(url);
  const statements = CLICKHOUSE_LAYOUTS[layout - 1]!.statements.map((s) =>
    s.replaceAll("{db}", db).replaceAll("{cluster}", cluster),
  );
  for (const statement of statements) await onEveryShard(url, statement);
  const onShard = async (i: number, sql: string) => {
    const response = await fetch(`${shards[i]}/`, { method: "POST", body: sql });
    if (!response.ok) throw new Error(await response.text());
  };
  const rows = (no: number, reports: readonly Report[]) =>
    reports.map((r) => `(${no}, '${r.id}', ${r.view}, [${r.cell}])`).join(", ");
  const byShard = (reports: readonly Report[]) =>
    shards.map((_, i) => reports.filter((r) => shardOf(r.id, shards.length) === i));
  const rounds = layout >= 2 ? [OPEN, DROPPED] : [OPEN];
  for (const id of rounds) {
    const request = JSON.stringify(roundToStore(plan, id).request);
    await onEveryShard(
      url,
      `INSERT INTO ${db}.calm_rounds VALUES (${numberOf(id)}, '${id}', '2026-01-01T00:00:00Z', '${JSON.stringify(plan)}', '${request}')`,
    );
  }
  // The open round: 40 reports in their shards, report 1 twice (two collectors raced on it).
  const open = fixtureReports(1, 40);
  for (const [i, part] of byShard([...open, open[0]!]).entries())
    if (part.length > 0)
      await onShard(i, `INSERT INTO ${db}.calm_reports VALUES ${rows(numberOf(OPEN), part)}`);
  await onShard(
    0,
    `INSERT INTO ${db}.calm_counters VALUES (${numberOf(OPEN)}, 'duplicates', 3), (${numberOf(OPEN)}, 'rejected:schema', 2)`,
  );
  if (layout === 1) return;
  if (layout === 3) return writeLayout3Rest(url, byShard, onShard);
  // Layout 2: a round closed with its ids dropped: its counts kept per shard, its mark on
  // every shard, and some of its rows still there (the delete is an asynchronous mutation).
  const dropped = fixtureReports(100, 25);
  const no = numberOf(DROPPED);
  await onEveryShard(
    url,
    `INSERT INTO ${db}.calm_round_state VALUES (${no}, '${DROPPED}', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z')`,
  );
  for (const [i, part] of byShard(dropped).entries()) {
    const cells = new Map<string, number>();
    for (const r of part)
      for (const key of [`${r.view},${REPORT_MARK}`, `${r.view},${r.cell}`])
        cells.set(key, (cells.get(key) ?? 0) + 1);
    if (cells.size > 0)
      await onShard(
        i,
        `INSERT INTO ${db}.calm_closed_counts VALUES ${[...cells].map(([key, n]) => `(${no}, ${key}, ${n})`).join(", ")}`,
      );
  }
  await onShard(0, `INSERT INTO ${db}.calm_reports VALUES ${rows(no, byShard(dropped)[0]!.slice(0, 3))}`);
}

/**
 * Layout 3 beyond the open round's rows (counted by its materialized view as
 * inserted): the write-off of report 1's raced copy, and a round closed with its
 * ids dropped (its counts in `calm_cell_counts`, no rows left).
 */
async function writeLayout3Rest(
  url: string,
  byShard: (reports: readonly Report[]) => Report[][],
  onShard: (i: number, sql: string) => Promise<void>,
) {
  const { database: db, shards } = parseClickHouseUrl(url);
  const first = fixtureReports(1, 1)[0]!;
  const open = numberOf(OPEN);
  await onShard(
    shardOf(first.id, shards.length),
    `INSERT INTO ${db}.calm_count_fixes VALUES (${open}, '${first.id}', ${first.view}, ${REPORT_MARK}, -1, 2),
     (${open}, '${first.id}', ${first.view}, ${first.cell}, -1, 2)`,
  );
  const no = numberOf(DROPPED);
  await onEveryShard(
    url,
    `INSERT INTO ${db}.calm_round_state VALUES (${no}, '${DROPPED}', '2026-01-02T00:00:00Z', '2026-01-03T00:00:00Z')`,
  );
  for (const [i, part] of byShard(fixtureReports(100, 25)).entries()) {
    const values = part.flatMap((r) => [
      `(${no}, ${r.view}, ${REPORT_MARK}, 1)`,
      `(${no}, ${r.view}, ${r.cell}, 1)`,
    ]);
    if (values.length > 0) await onShard(i, `INSERT INTO ${db}.calm_cell_counts VALUES ${values.join(", ")}`);
  }
}

/** Rows per granule of `calm_reports` on each shard, from its DDL. */
async function granules(url: string): Promise<string[]> {
  const { database } = parseClickHouseUrl(url);
  const answers = await onEveryShard(
    url,
    `SELECT extract(create_table_query, 'index_granularity = [0-9]+') FROM system.tables
     WHERE database = '${database}' AND name = 'calm_reports'`,
  );
  return answers.map((answer) => answer.trim());
}

/** Per shard, the version table's engine and its versions in order ("MergeTree 2,3,4"). */
async function versionRows(url: string): Promise<string[]> {
  const { database } = parseClickHouseUrl(url);
  const engines = await onEveryShard(
    url,
    `SELECT engine FROM system.tables WHERE database = '${database}' AND name = 'calm_schema_version'`,
  );
  const stamps = await onEveryShard(
    url,
    `SELECT arrayStringConcat(arrayMap(v -> toString(v), arraySort(groupArray(version))), ',')
     FROM ${database}.calm_schema_version`,
  );
  return engines.map((engine, i) => `${engine.trim()} ${stamps[i]!.trim()}`);
}

/** The round holds exactly `reports` (counted once each), with these counters. */
async function expectRound(storage: CollectorStorage, id: string, reports: Report[], counters: object) {
  const round = (await storage.findRound(id))!;
  const perView = new Array<number>(plan.m).fill(0);
  for (const r of reports) perView[r.view]!++;
  expect(await storage.counts(round)).toEqual({
    accepted: reports.length,
    perView,
    dropped: {},
    ...counters,
  });
  const counted = await storage.supportCounts(round);
  expect(counted.support.map((cells) => Array.from(cells))).toEqual(support(reports));
  return round;
}

describeWith(clickhouseCluster(), "ClickHouse schema versions", (service) => {
  const url = suiteClickhouseDatabase(service.url!, "layout");
  const { database } = parseClickHouseUrl(url);
  const versions = async (at = url) =>
    (
      await onEveryShard(
        at,
        `SELECT max(version) FROM ${parseClickHouseUrl(at).database}.calm_schema_version`,
      )
    ).map(Number);

  for (const layout of [1, 2, 3] as const)
    it(`layout ${layout} is migrated: every round's counts, support, ids and state kept; old ids still known`, async () => {
      await withClickhouseDatabase(service.url!, `layout${layout}`, async (at) => {
        await writeLayout(at, layout);
        let storage = await openClickHouseStorage(at);
        expect(storage.schemaMigration).toMatchObject({ backend: "clickhouse", from: layout, to: 4 });
        expect(storage.schemaMigration!.steps.map((s) => s.slice(0, 6))).toEqual(
          ["1 -> 2", "2 -> 3", "3 -> 4"].slice(layout - 1),
        );
        expect(await versions(at)).toEqual([4, 4]);
        expect(await granules(at)).toEqual(["index_granularity = 512", "index_granularity = 512"]);
        // Layouts 2 and 3 kept their versions in a TinyLog, which concurrent readers and
        // stamps break: now a MergeTree holding the old stamps and the new ones (layout 1
        // had no version table: one stamp per step).
        const stamps = ["2,3,4", "2,3,4", "3,4"][layout - 1];
        expect(await versionRows(at)).toEqual([`MergeTree ${stamps}`, `MergeTree ${stamps}`]);
        const open = fixtureReports(1, 40);
        const round = await expectRound(storage, OPEN, open, { duplicates: 3, rejected: { schema: 2 } });
        // Layouts 1 and 2: one row per id (copied FINAL: the raced copy is gone); 3: the copy
        // is kept, its write-off too.
        expect(await storage.heldIds(round)).toBe(layout === 3 ? 41 : 40);
        expect(await storage.roundState(round)).toEqual({ closedAt: null, idsDroppedAt: null });
        expect(
          await storage.storeReports(round, [
            acceptedReport(1, open[0]!.view, [open[0]!.cell]),
            acceptedReport(999, 0, [0]),
          ]),
        ).toEqual({ stored: 1, duplicates: 1 });
        if (layout >= 2) {
          const dropped = await expectRound(storage, DROPPED, fixtureReports(100, 25), {
            duplicates: 0,
            rejected: {},
          });
          expect(await storage.heldIds(dropped)).toBe(0);
          expect(await storage.roundState(dropped)).toEqual({
            closedAt: "2026-01-02T00:00:00Z",
            idsDroppedAt: "2026-01-03T00:00:00Z",
          });
        }
        await storage.close();
        // Opened again: nothing left to do, the data as migrated.
        storage = await openClickHouseStorage(at);
        expect(storage.schemaMigration).toEqual({ backend: "clickhouse", from: 4, to: 4, steps: [] });
        expect((await storage.counts((await storage.findRound(OPEN))!)).accepted).toBe(41);
        await storage.close();
      });
    }, 120_000);

  it("a step 2 -> 3 interrupted mid-copy (old table renamed, new one half filled) is redone whole", async () => {
    await withClickhouseDatabase(service.url!, "layout2cut", async (at, db) => {
      await writeLayout(at, 2);
      await onEveryShard(at, `RENAME TABLE ${db}.calm_reports TO ${db}.calm_reports_v2`);
      await onEveryShard(
        at,
        `CREATE TABLE ${db}.calm_reports (round_no UInt64, report_id UUID, view UInt32, cells Array(UInt32))
         ENGINE = MergeTree() ORDER BY (round_no, report_id)`,
      );
      await onEveryShard(
        at,
        `INSERT INTO ${db}.calm_reports SELECT * FROM ${db}.calm_reports_v2 WHERE round_no = ${numberOf(OPEN)} LIMIT 5`,
      );
      const storage = await openClickHouseStorage(at);
      expect(storage.schemaMigration).toMatchObject({ from: 2, to: 4 });
      const round = await expectRound(storage, OPEN, fixtureReports(1, 40), {
        duplicates: 3,
        rejected: { schema: 2 },
      });
      expect(await storage.heldIds(round)).toBe(40);
      await expectRound(storage, DROPPED, fixtureReports(100, 25), { duplicates: 0, rejected: {} });
      await storage.close();
    });
  }, 120_000);

  /** A fresh database holding layout 3 after step 3 -> 4's first moves: view dropped, old table renamed, new one made. */
  const withStep4Begun = (name: string, body: (at: string, db: string) => Promise<void>) =>
    withClickhouseDatabase(service.url!, name, async (at, db) => {
      await writeLayout(at, 3);
      await onEveryShard(at, `DROP TABLE ${db}.calm_cell_counts_mv`);
      await onEveryShard(at, `RENAME TABLE ${db}.calm_reports TO ${db}.calm_reports_v3`);
      await onEveryShard(at, reportsTable(db));
      await body(at, db);
    });

  it("a step 3 -> 4 interrupted mid-copy (view dropped, old table renamed, new one half filled) is redone whole", async () => {
    await withStep4Begun("layout3cut", async (at, db) => {
      await onEveryShard(at, `INSERT INTO ${db}.calm_reports SELECT * FROM ${db}.calm_reports_v3 LIMIT 5`);
      const storage = await openClickHouseStorage(at);
      expect(storage.schemaMigration).toMatchObject({ from: 3, to: 4 });
      const round = await expectRound(storage, OPEN, fixtureReports(1, 40), {
        duplicates: 3,
        rejected: { schema: 2 },
      });
      expect(await storage.heldIds(round)).toBe(41);
      // The view is back: a new report is counted.
      expect(await storage.storeReports(round, [acceptedReport(999, 0, [0])])).toEqual({
        stored: 1,
        duplicates: 0,
      });
      expect((await storage.counts(round)).accepted).toBe(41);
      await storage.close();
    });
  }, 120_000);

  it("the check above catches a step 3 -> 4 that copied the rows with the view attached (counted twice)", async () => {
    await withStep4Begun("layout3broken", async (at, db) => {
      // The broken variant: the new table's view made before the copy.
      const view = CLICKHOUSE_LAYOUTS[2]!.statements.find((s) => s.includes("MATERIALIZED VIEW"))!;
      await onEveryShard(at, view.replaceAll("{db}", db));
      await onEveryShard(at, `INSERT INTO ${db}.calm_reports SELECT * FROM ${db}.calm_reports_v3`);
      await onEveryShard(at, `DROP TABLE ${db}.calm_reports_v3`);
      await onEveryShard(at, `INSERT INTO ${db}.calm_schema_version VALUES (4, 'broken')`);
      const storage = await openClickHouseStorage(at);
      expect(storage.schemaMigration!.steps).toEqual([]);
      await expect(
        expectRound(storage, OPEN, fixtureReports(1, 40), { duplicates: 3, rejected: { schema: 2 } }),
      ).rejects.toThrow();
      // 40 counted (41 rows, one written off), then the 41 rows once more.
      expect((await storage.counts((await storage.findRound(OPEN))!)).accepted).toBe(81);
      await storage.close();
    });
  }, 120_000);

  it("collectors opening a fresh database at once all open it, stamped once per collector", async () => {
    // Each open reads the version table while the others stamp it. In the TinyLog the
    // version table was before, a read beside an insert fails (".../tmp_sizes.json not
    // found"), which the two-collector cluster test met 2 runs in 2 here.
    const failed: string[] = [];
    const tables: string[] = [];
    for (let attempt = 1; attempt <= 8; attempt++) {
      await withClickhouseDatabase(service.url!, `opened${attempt}`, async (at) => {
        const opened = await Promise.allSettled([1, 2, 3, 4].map(() => openClickHouseStorage(at)));
        for (const o of opened) if (o.status === "rejected") failed.push(String(o.reason));
        await Promise.all(opened.map((o) => (o.status === "fulfilled" ? o.value.close() : undefined)));
        tables.push(...(await versionRows(at)));
      });
    }
    expect(failed).toEqual([]);
    expect(tables.filter((row) => !/^MergeTree 4(,4){0,3}$/.test(row))).toEqual([]);
  }, 120_000);

  it("the current layout is stamped and kept; a newer one is refused", async () => {
    let storage = await openClickHouseStorage(url);
    expect(storage.schemaMigration).toEqual({ backend: "clickhouse", from: 0, to: 4, steps: [] });
    expect(await versions()).toEqual([CLICKHOUSE_SCHEMA_VERSION, CLICKHOUSE_SCHEMA_VERSION]);
    const round = await storage.createRound(roundToStore(plan as CalmPlan, fixedId(77)));
    await storage.storeReports(round, [acceptedReport(1, 0, [1]), acceptedReport(2, 0, [0])]);
    expect((await storage.counts(round)).accepted).toBe(2);
    expect(await storage.ready!()).toEqual({
      found: CLICKHOUSE_SCHEMA_VERSION,
      expected: CLICKHOUSE_SCHEMA_VERSION,
    });
    await storage.close();
    // Opening again keeps the data and stamps nothing new.
    storage = await openClickHouseStorage(url);
    expect((await storage.counts((await storage.findRound(fixedId(77)))!)).accepted).toBe(2);
    await storage.close();

    await onEveryShard(
      url,
      `INSERT INTO ${database}.calm_schema_version VALUES (${CLICKHOUSE_SCHEMA_VERSION + 1}, 'later')`,
    );
    await expect(openClickHouseStorage(url)).rejects.toThrow(
      `the clickhouse database's schema is version ${CLICKHOUSE_SCHEMA_VERSION + 1}, newer than version ${CLICKHOUSE_SCHEMA_VERSION}`,
    );
  });
});
