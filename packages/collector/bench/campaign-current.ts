/**
 * What a client's `GET /v1/campaigns/:id/current` costs as a campaign grows: a
 * DuckDB collector on loopback, one campaign opened up to 10, 100 and 300 rounds
 * by the admin API, then 100 sequential `current` requests each; prints the mean
 * milliseconds per request. Run: `npx tsx bench/campaign-current.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, startCollector } from "../src/index.js";

const TOKEN = "bench-admin-token-0123456789abcdef";
const dir = mkdtempSync(join(tmpdir(), "calm-campaign-bench-"));
const storage = await openStorage({ duckdb: join(dir, "c.duckdb") });
const collector = await startCollector({ storage, adminToken: TOKEN });
const admin = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
try {
  const attributes = Array.from({ length: 4 }, (_, i) => ({ name: `b${i}`, labels: ["0", "1"] }));
  const created = (await (
    await fetch(`${collector.url}/v1/campaigns`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ schema: { attributes }, eps: 1, k: 2, n: 1000 }),
    })
  ).json()) as { campaign: string };
  const current = `${collector.url}/v1/campaigns/${created.campaign}/current`;
  let rounds = 1;
  for (const target of [10, 100, 300]) {
    for (; rounds < target; rounds++)
      await fetch(`${collector.url}/v1/campaigns/${created.campaign}/rounds`, {
        method: "POST",
        headers: admin,
        body: "{}",
      });
    const requests = 100;
    const start = performance.now();
    for (let i = 0; i < requests; i++) await (await fetch(current)).json();
    const ms = (performance.now() - start) / requests;
    console.log(`campaign of ${target} rounds: GET current ${ms.toFixed(2)} ms per request`);
  }
} finally {
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
}
