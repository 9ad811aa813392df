/**
 * Storage of a round before and after closing it and dropping its report ids
 * (`--backend duckdb|postgres|clickhouse`, `--reports` default 100,000, the
 * benchmark's round: d = 8 binary attributes, k = 8, eps = 1, OUE views of 16 cells).
 * Reports go straight to the storage (`storeReports`, batches of 1,000), then:
 * 1. bytes with the round empty (baseline), full, and after `closeRound` +
 *    `dropClosedIds` (its rows replaced by counts per (view, cell));
 * 2. bytes per stored report ((full - baseline) / reports) and per closed round
 *    (after - baseline).
 * Bytes: DuckDB file + WAL, and its used blocks (`PRAGMA database_size` after a
 * CHECKPOINT: DuckDB reuses freed blocks but does not shrink the file);
 * PostgreSQL `pg_total_relation_size` of the calm_ tables, after the drop and
 * (the drop rebuilds the report key and support index) and again after `VACUUM`
 * (what autovacuum does: empty trailing pages return to the OS, the rest is
 * reused by later rows) and after
 * `VACUUM FULL` (the floor; it locks the tables while it rewrites them); ClickHouse `system.parts` active
 * `bytes_on_disk` once the `ALTER TABLE ... DELETE` mutation has run (all shards).
 * Run: `npx tsx bench/storage-size.ts --backend duckdb --reports 100000`.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { parseClickHouseUrl } from "../src/clickhouse.js";
import { type CollectorStorage, planRound } from "../src/index.js";
import { type BackendName, benchBackend, storeUniformReports } from "./backends.js";

const argument = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const backendName = argument("backend", "duckdb") as BackendName;
const n = Number(argument("reports", "100000"));
const BATCH = 1000;

const backend = await benchBackend(backendName, 2);
const attributes = Array.from({ length: 8 }, (_, i) => ({ name: `x${i}`, cardinality: 2 }));
const request = { schema: { attributes }, eps: 1, k: 8, n: 1_000_000 };
const planned = planRound(request);
const chDatabase = backendName === "clickhouse" ? parseClickHouseUrl(backend.location).database : "";
const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

let closedCountRows = "?";

/** DuckDB: used blocks x block size after a checkpoint (the storage must be closed). */
async function duckUsedBytes(): Promise<{ used: number; note: string }> {
  const instance = await DuckDBInstance.create(backend.location);
  const connection = await instance.connect();
  await connection.run("CHECKPOINT");
  const [row] = (await connection.runAndReadAll("PRAGMA database_size")).getRowObjects();
  const used = Number(row!.used_blocks) * Number(row!.block_size);
  closedCountRows = String(
    (
      await connection.runAndReadAll("SELECT count(*) FROM calm_closed_counts").catch(() => undefined)
    )?.getRows()[0]?.[0] ?? "?",
  );
  connection.closeSync();
  instance.closeSync();
  return { used, note: ` (used blocks ${kib(used)}, free blocks ${row!.free_blocks})` };
}

/** The store's bytes now; DuckDB closes and reopens the storage around the measure. */
async function measure(
  storage: CollectorStorage,
): Promise<{ bytes: number; used: number; note: string; storage: CollectorStorage }> {
  if (backendName === "duckdb") {
    await storage.close();
    const { used, note } = await duckUsedBytes();
    return { bytes: await backend.bytes(), used, note, storage: await backend.open() };
  }
  const bytes = await backend.bytes();
  return { bytes, used: bytes, note: "", storage };
}

try {
  let storage = await backend.open();
  let round = await storage.createRound(planned);
  const views = round.plan.views;
  console.log(
    `${backend.description}: round of ${views.length} views (${views[0]!.oracle}, ${views[0]!.cells} cells), ${n} reports`,
  );
  let m = await measure(storage);
  storage = m.storage;
  const baseline = m.used;
  console.log(`baseline (round created, no report): ${kib(m.bytes)}${m.note}`);

  const started = performance.now();
  const { supportRows } = await storeUniformReports(storage, round, n, BATCH);
  console.log(
    `stored in ${((performance.now() - started) / 1000).toFixed(1)} s; ${(supportRows / n).toFixed(2)} support cells per report`,
  );
  m = await measure(storage);
  storage = m.storage;
  round = (await storage.findRound(round.id))!;
  const full = m.used;
  const before = await storage.supportCounts(round);
  console.log(`full: ${kib(m.bytes)}${m.note}; ${((full - baseline) / n).toFixed(1)} bytes per report`);

  const closed = await storage.closeRound(round, new Date());
  // The sweep as it runs an hour (the default retention) after the close.
  const later = new Date(Date.parse(closed.closedAt!) + 3_600_000);
  const dropped = await storage.dropClosedIds(later, later);
  if (dropped.length !== 1) throw new Error(`dropClosedIds dropped ${dropped.length} rounds, expected 1`);
  if (backendName === "clickhouse") {
    // Wait until the mutation has rewritten the parts (all shards).
    for (let i = 0; i < 600; i++) {
      const pending = (
        await backend.sql(
          `SELECT count() FROM system.mutations WHERE is_done = 0 AND database = '${chDatabase}'`,
        )
      ).reduce((s, x) => s + Number(x), 0);
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const after = await storage.supportCounts((await storage.findRound(round.id))!);
  const same =
    JSON.stringify(after.reportsPerView) === JSON.stringify(before.reportsPerView) &&
    after.support.every((s, v) => s.every((x, i) => x === before.support[v]![i]));
  if (!same) throw new Error("counts changed when the ids were dropped");
  const heldIds = await storage.heldIds((await storage.findRound(round.id))!);
  m = await measure(storage);
  storage = m.storage;
  console.log(
    `after close + drop ids: ${kib(m.bytes)}${m.note}; round holds ${heldIds} ids; counts identical: ${same}`,
  );
  if (backendName === "postgres") {
    const indexes = await backend.sql(
      "SELECT pg_relation_size('calm_reports_pkey') + pg_relation_size('calm_support_round')",
    );
    console.log(
      `  of which the report key + support index (rebuilt by the drop: REINDEX CONCURRENTLY): ${kib(Number(indexes[0]))}`,
    );
    await backend.sql("VACUUM");
    const vacuumed = await backend.bytes();
    console.log(
      `after VACUUM: ${kib(vacuumed)} (freed table pages: reused by later rows, empty tail returned)`,
    );
    await backend.sql("VACUUM FULL");
    const floor = await backend.bytes();
    console.log(`after VACUUM FULL: ${kib(floor)}; closed round: ${kib(floor - baseline)} above baseline`);
  } else {
    console.log(
      `closed round: ${kib(m.used - baseline)} above baseline${backendName === "duckdb" ? " (used blocks)" : ""}`,
    );
  }
  const counts =
    backendName === "clickhouse"
      ? await backend.sql(`SELECT count() FROM ${chDatabase}.calm_closed_counts FINAL`)
      : backendName === "postgres"
        ? await backend.sql("SELECT count(*) FROM calm_closed_counts")
        : [closedCountRows];
  console.log(
    `closed-count rows: ${counts.join(" + ")} (views x (cells + 1) = ${views.reduce((s, v) => s + v.cells + 1, 0)})`,
  );
  await storage.close();
} finally {
  await backend.dispose();
}
