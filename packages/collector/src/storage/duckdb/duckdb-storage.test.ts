import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { planCalm } from "@calm-ldp/calm-core";
import { createSchema, uniformSchema } from "@calm-ldp/marginal-algebra";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import {
  fixedId as id,
  acceptedReport as report,
  roundToStore,
  suiteTempDir,
} from "../../../test/support.js";
import { openDuckDbStorage } from "./index.js";

describe("DuckDB storage", () => {
  const dir = suiteTempDir();
  const file = join(dir, "storage.duckdb");
  const plan = planCalm({ schema: uniformSchema(4), n: 10_000, eps: 1, k: 2 }, { l: 2 }); // 6 views of 4 cells

  it("stores each report id once, across batches of one group commit, across groups and across a restart", async () => {
    let storage = await openDuckDbStorage(file);
    const round = await storage.createRound(roundToStore(plan, id(999)));
    expect(round.no).toBeGreaterThan(0);
    // Submitted in one tick: one group; report 2 appears in both batches, report 3 twice in one.
    const [a, b] = await Promise.all([
      storage.storeReports(round, [report(1, 0, [1]), report(2, 1, [0, 3])]),
      storage.storeReports(round, [report(2, 1, [0, 3]), report(3, 2, [2]), report(3, 2, [2])]),
    ]);
    expect(a).toEqual({ stored: 2, duplicates: 0 });
    expect(b).toEqual({ stored: 1, duplicates: 2 });
    expect(await storage.storeReports(round, [report(1, 0, [1]), report(4, 0, [2])])).toEqual({
      stored: 1,
      duplicates: 1,
    });
    await storage.countRejected(round, "schema", 3);
    await storage.countRejected(round, "schema", 2);
    await storage.close();
    // close() checkpoints: every committed change is in the file, none left in the write-ahead log.
    expect(existsSync(`${file}.wal`) ? statSync(`${file}.wal`).size : 0).toBe(0);

    storage = await openDuckDbStorage(file);
    const again = (await storage.findRound(id(999)))!;
    expect(again.plan).toEqual(plan);
    expect(await storage.storeReports(again, [report(4, 0, [2]), report(5, 3, [1, 2])])).toEqual({
      stored: 1,
      duplicates: 1,
    });
    const counts = await storage.counts(again);
    expect(counts).toMatchObject({ accepted: 5, duplicates: 4, rejected: { schema: 5 } });
    expect(plan.m).toBe(6);
    expect(counts.perView).toEqual([2, 1, 1, 1, 0, 0]);
    const support = await storage.supportCounts(again);
    expect(support.reportsPerView).toEqual(counts.perView);
    expect(Array.from(support.support[0]!)).toEqual([0, 1, 1, 0]);
    expect(Array.from(support.support[1]!)).toEqual([1, 0, 0, 1]);
    expect(Array.from(support.support[3]!)).toEqual([0, 1, 1, 0]);
    expect(await storage.findRound(id(998))).toBeUndefined();
    await storage.close();
    await expect(storage.storeReports(again, [report(6, 0, [0])])).rejects.toThrow(/closed/);
  });
  it("writes report ids as the UUIDs they are (both halves, the top bit) and still knows them after a restart", async () => {
    const file = join(dir, "ids.duckdb");
    const ids = [
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      "80000000-0000-0000-0000-000000000001",
      "7fffffff-ffff-ffff-ffff-fffffffffffe",
      "0123abcd-4567-89ef-fedc-ba9876543210",
    ];
    let storage = await openDuckDbStorage(file);
    const round = await storage.createRound(roundToStore(plan, id(555)));
    expect(
      await storage.storeReports(
        round,
        ids.map((id, i) => ({ id, view: i % 6, cells: [i % 4] })),
      ),
    ).toEqual({
      stored: 5,
      duplicates: 0,
    });
    await storage.close();
    storage = await openDuckDbStorage(file);
    const again = (await storage.findRound(id(555)))!;
    // Known again after the restart (loaded from the table), and a new id still stored.
    expect(
      await storage.storeReports(
        again,
        [...ids, "0123abcd-4567-89ef-fedc-ba9876543211"].map((id) => ({ id, view: 0, cells: [] })),
      ),
    ).toEqual({ stored: 1, duplicates: 5 });
    await expect(storage.storeReports(again, [{ id: "not-a-uuid", view: 0, cells: [] }])).rejects.toThrow(
      /not a lowercase UUID/,
    );
    await storage.close();
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    const stored = await connection.runAndReadAll(
      "SELECT report_id::VARCHAR FROM calm_reports ORDER BY report_id",
    );
    expect(stored.getColumns()[0]).toEqual([...ids, "0123abcd-4567-89ef-fedc-ba9876543211"].sort());
    connection.closeSync();
    instance.closeSync();
  });
  it("opens a file of earlier versions (reports keyed on (round, report id), one support row per cell): key dropped, ids still de-duplicated, old support rows counted and compacted", async () => {
    const old = join(dir, "keyed.duckdb");
    let storage = await openDuckDbStorage(old);
    const round = await storage.createRound(roundToStore(plan, id(777)));
    await storage.storeReports(round, [report(1, 0, [1]), report(2, 1, [0, 3]), report(3, 2, [2])]);
    const supportBefore = await storage.supportCounts(round);
    await storage.close();
    // Rewrite the tables as earlier versions wrote them: the primary key, one support row per cell.
    const keyCount = async (connection: Awaited<ReturnType<DuckDBInstance["connect"]>>) =>
      Number(
        (
          await connection.runAndReadAll(
            "SELECT count(*)::DOUBLE FROM duckdb_constraints() WHERE table_name = 'calm_reports' AND constraint_type = 'PRIMARY KEY'",
          )
        ).getRows()[0]![0],
      );
    let instance = await DuckDBInstance.create(old);
    let connection = await instance.connect();
    await connection.run(`CREATE TABLE keyed (round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL,
      PRIMARY KEY (round_no, report_id))`);
    await connection.run("INSERT INTO keyed SELECT round_no, report_id, view FROM calm_reports");
    await connection.run(
      "INSERT INTO calm_support SELECT round_no, view, cell FROM calm_support_counts, range(count)",
    );
    await connection.run(
      "INSERT INTO calm_support SELECT round_no, view, x FROM calm_reports, range(64) t(x) WHERE (cell_bits >> x) & 1 = 1",
    );
    await connection.run("DELETE FROM calm_support_counts");
    await connection.run("DROP TABLE calm_reports");
    await connection.run("ALTER TABLE keyed RENAME TO calm_reports");
    await connection.run("DROP TABLE calm_schema_version"); // those versions stored none
    expect(await keyCount(connection)).toBe(1);
    connection.closeSync();
    instance.closeSync();

    storage = await openDuckDbStorage(old);
    const again = (await storage.findRound(id(777)))!;
    expect(await storage.storeReports(again, [report(2, 1, [0, 3]), report(4, 3, [1])])).toEqual({
      stored: 1,
      duplicates: 1,
    });
    expect((await storage.counts(again)).perView).toEqual([1, 1, 1, 1, 0, 0]);
    // Old per-cell rows and new group counts add up; closing and dropping the ids keeps them.
    const support = await storage.supportCounts(again);
    expect(Array.from(support.support[1]!)).toEqual(Array.from(supportBefore.support[1]!));
    expect(Array.from(support.support[3]!)).toEqual([0, 1, 0, 0]);
    const closed = await storage.closeRound(again, new Date());
    const later = new Date(Date.parse(closed.closedAt!) + 1);
    expect(await storage.dropClosedIds(later, later)).toEqual([id(777)]);
    expect(await storage.supportCounts(again)).toEqual(support);
    await storage.close();
    instance = await DuckDBInstance.create(old);
    connection = await instance.connect();
    expect(await keyCount(connection)).toBe(0);
    const rows = await connection.runAndReadAll(
      "SELECT count(*)::DOUBLE, count(DISTINCT report_id)::DOUBLE FROM calm_reports",
    );
    expect(rows.getRows()[0]).toEqual([0, 0]); // dropped with the round's ids
    const supportRows = await connection.runAndReadAll(
      "SELECT (SELECT count(*) FROM calm_support) + (SELECT count(*) FROM calm_support_counts)",
    );
    expect(Number(supportRows.getRows()[0]![0])).toBe(0);
    connection.closeSync();
    instance.closeSync();
  });
  it("keeps a report's cells as bits in its row (views of <= 64 cells; wider views as group counts), and reads files of the previous version (group counts only) plus new rows exactly, also after closing and dropping ids", async () => {
    // Views (a0, a1) of 64 cells (bits, also bit 63), (a0, a2) and (a1, a2) of 72 cells (group counts).
    const schema = createSchema([
      { name: "a0", cardinality: 8 },
      { name: "a1", cardinality: 8 },
      { name: "a2", cardinality: 9 },
    ]);
    const mixed = planCalm({ schema, n: 10_000, eps: 1, k: 2 }, { l: 2 });
    expect(mixed.views.map((view) => view.cells).sort()).toEqual([64, 72, 72]);
    const narrow = mixed.views.findIndex((view) => view.cells === 64);
    // Deterministic reports (no randomness): report i of view i % 3, its cells picked by a fixed rule.
    const make = (i: number) => {
      const view = i % 3;
      const cells = mixed.views[view]!.cells;
      const picked = [0, 31, 32, cells - 1, (7 * i) % cells, (13 * i + 5) % cells].filter(
        (_, j) => (i >> j) & 1,
      );
      return report(
        i,
        view,
        [...new Set(picked)].sort((a, b) => a - b),
      );
    };
    const expected = (reports: ReturnType<typeof make>[]) =>
      mixed.views.map((view, v) => {
        const counts = new Array<number>(view.cells).fill(0);
        for (const r of reports) if (r.view === v) for (const cell of r.cells) counts[cell]!++;
        return counts;
      });
    const first = Array.from({ length: 300 }, (_, i) => make(i));
    const second = Array.from({ length: 300 }, (_, i) => make(i + 200)); // 100 repeats of the first
    const all = [...first, ...second.slice(100)];
    const file = join(dir, "bits.duckdb");
    let storage = await openDuckDbStorage(file);
    const round = await storage.createRound(roundToStore(mixed, id(4242)));
    expect(await storage.storeReports(round, first)).toEqual({ stored: 300, duplicates: 0 });
    expect((await storage.supportCounts(round)).support.map((s) => Array.from(s))).toEqual(expected(first));
    await storage.close();

    let instance = await DuckDBInstance.create(file);
    let connection = await instance.connect();
    const scalar = async (sql: string) => Number((await connection.runAndReadAll(sql)).getRows()[0]![0]);
    // The narrow view's support is in the report rows only; the wide views' in group counts only.
    expect(await scalar(`SELECT count(*) FROM calm_support_counts WHERE view = ${narrow}`)).toBe(0);
    expect(await scalar(`SELECT count(*) FROM calm_reports WHERE view <> ${narrow} AND cell_bits <> 0`)).toBe(
      0,
    );
    expect(await scalar(`SELECT count(*) FROM calm_reports WHERE cell_bits < 0`)).toBeGreaterThan(0); // bit 63
    // Rewrite the file as the previous version wrote it: no cell_bits column, all support as group counts.
    await connection.run(`INSERT INTO calm_support_counts SELECT round_no, view, x, count(*) FROM calm_reports,
      range(64) t(x) WHERE (cell_bits >> x) & 1 = 1 GROUP BY round_no, view, x`);
    await connection.run("ALTER TABLE calm_reports DROP COLUMN cell_bits");
    await connection.run("DROP TABLE calm_schema_version"); // that version stored none
    expect(await scalar("SELECT count(*) FROM duckdb_columns() WHERE table_name = 'calm_reports'")).toBe(3);
    connection.closeSync();
    instance.closeSync();

    storage = await openDuckDbStorage(file);
    const again = (await storage.findRound(id(4242)))!;
    expect(await storage.storeReports(again, second)).toEqual({ stored: 200, duplicates: 100 });
    const support = await storage.supportCounts(again);
    expect(support.support.map((s) => Array.from(s))).toEqual(expected(all));
    expect(support.reportsPerView).toEqual([0, 1, 2].map((v) => all.filter((r) => r.view === v).length));
    // Closing and dropping the ids folds both sources into the closed counts, exactly.
    const closed = await storage.closeRound(again, new Date());
    const later = new Date(Date.parse(closed.closedAt!) + 1);
    expect(await storage.dropClosedIds(later, later)).toEqual([id(4242)]);
    expect(await storage.supportCounts(again)).toEqual(support);
    expect(await storage.heldIds(again)).toBe(0);
    await storage.close();
    instance = await DuckDBInstance.create(file);
    connection = await instance.connect();
    expect(await scalar("SELECT count(*) FROM calm_support_counts")).toBe(0);
    connection.closeSync();
    instance.closeSync();
  });
});
