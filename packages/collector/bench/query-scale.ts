/**
 * An 8-way marginal on a large round (`--backend clickhouse|postgres|duckdb`,
 * `--shards 1|2`, `--reports` default 10,000,000): reports go straight to the
 * storage (`storeReports`, batches of `--batch`, default 10,000: the ingest path
 * minus HTTP), then the query is timed 10 times: the SQL `GROUP BY` (the store's
 * part, which grows with the reports) and the estimate (JavaScript, independent of
 * the reports), then 10 times over HTTP (a collector on the same storage in this
 * process: `GET /v1/rounds/<id>/marginals`, SQL + estimate + answer). The round: d = 8 binary attributes, eps = 1, planned for `--reports`
 * users with `--k` (default 3: GRR views, one support row per report; k = 8 at
 * 10^7 users plans a single OUE view of 256 cells, ~70 support rows per report).
 * Run: `npx tsx bench/query-scale.ts --backend clickhouse --shards 2 --reports 10000000`.
 */
import { estimateMarginal, planRound, startCollector } from "../src/index.js";
import { type BackendName, benchBackend, storeUniformReports } from "./backends.js";

const argument = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const backendName = argument("backend", "clickhouse") as BackendName;
const n = Number(argument("reports", "10000000"));
const batch = Number(argument("batch", "10000"));
const shards = Number(argument("shards", "2"));
const k = Number(argument("k", "3"));
if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--reports must be a positive integer (got ${n})`);
if (!Number.isSafeInteger(batch) || batch < 1)
  throw new Error(`--batch must be a positive integer (got ${batch})`);

const backend = await benchBackend(backendName, shards);
const attributes = Array.from({ length: 8 }, (_, i) => ({ name: `x${i}`, cardinality: 2 }));
try {
  const storage = await backend.open();
  const created = await storage.createRound(planRound({ schema: { attributes }, eps: 1, k, n }));
  const views = created.plan.views;
  console.log(
    `query at scale (${backend.description}, Node ${process.version}): ${n} reports, k = ${k}: round of ${views.length} views (${views[0]!.oracle}, ${views[0]!.cells} cells), batches of ${batch}`,
  );
  const started = performance.now();
  const { supportRows, storeSeconds } = await storeUniformReports(storage, created, n, batch);
  const total = (performance.now() - started) / 1000;
  console.log(
    `  stored in ${total.toFixed(0)} s (${storeSeconds.toFixed(0)} s in storeReports: ${(n / storeSeconds).toFixed(0)} reports/s); ${(supportRows / n).toFixed(2)} support rows per report`,
  );
  const bytes = await backend.bytes();
  console.log(
    `  tables on disk: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${(bytes / n).toFixed(1)} bytes per report`,
  );
  const round = (await storage.findRound(created.id))!;
  const sql: number[] = [];
  const js: number[] = [];
  let checksum = 0;
  for (let i = 0; i < 10; i++) {
    let t = performance.now();
    const counts = await storage.supportCounts(round);
    sql.push(performance.now() - t);
    t = performance.now();
    checksum += estimateMarginal(round.plan, counts, [0, 1, 2, 3, 4, 5, 6, 7]).table.cells[0]!;
    js.push(performance.now() - t);
    if (i === 0 && counts.reportsPerView.reduce((s, x) => s + x, 0) !== n)
      throw new Error(`counted ${counts.reportsPerView.reduce((s, x) => s + x, 0)} reports, stored ${n}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(
    `  8-way marginal: SQL GROUP BY median ${median(sql).toFixed(0)} ms (min ${Math.min(...sql).toFixed(0)}, max ${Math.max(...sql).toFixed(0)}; 10 runs); estimate median ${median(js).toFixed(1)} ms (checksum ${checksum.toFixed(6)})`,
  );
  const token = "query-scale-admin-token-0123456789";
  const collector = await startCollector({ storage, adminToken: token });
  const attrs = attributes.map((a) => a.name).join(",");
  const http: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const answer = (await (
      await fetch(`${collector.url}/v1/rounds/${round.id}/marginals?attrs=${attrs}`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { cells: number[] };
    http.push(performance.now() - t);
    checksum += answer.cells[0]!;
  }
  console.log(
    `  8-way marginal over HTTP (SQL + estimate + answer): median ${median(http).toFixed(0)} ms (min ${Math.min(...http).toFixed(0)}, max ${Math.max(...http).toFixed(0)}; 10 runs; checksum ${checksum.toFixed(6)})`,
  );
  await collector.close(); // (closes the storage too)
} finally {
  await backend.dispose();
}
