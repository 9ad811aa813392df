import { createReport, type WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import pg from "pg";
import { expect, it } from "vitest";
import type { CollectorStorage } from "../src/api.js";
import { openPostgresStorage } from "../src/postgres.js";
import { startCollector } from "../src/start-collector.js";
import {
  allOnesReport,
  call,
  createRound,
  describeWith,
  interceptedStorage,
  postgresServer,
  TOKEN,
  UNARY_ROUND,
  withoutMethod,
  withPostgresDatabase,
} from "./support.js";

/**
 * PostgreSQL stores a batch and counts its dropped reports (the per-report unary
 * check) in one transaction (`storeReportsAndDrops`), each dropped report id
 * counted once: a re-sent batch (same report ids: a retry after a lost answer),
 * alone, at the same time as the first, or through the careful path (after a
 * stored id was met), adds nothing to `unaryDropped` and counts its reports as
 * duplicates; a batch to a closed round counts nothing; dropping the round's ids
 * removes the dropped reports' ids and keeps the count. The broken variant (store,
 * then `countDropped`, as without the combined method) counts a retry twice.
 */
const ALPHA = 0.01;
type Status = {
  accepted: number;
  duplicates: number;
  unaryDropped: { reports: number; perView: number[] };
};

/** A storage whose `countDropped` throws: the combined path must not need it (one transaction per batch). */
const noSecondWrite = (storage: CollectorStorage): CollectorStorage =>
  interceptedStorage(storage, (method, call) =>
    method === "countDropped"
      ? Promise.reject(new Error("countDropped called: a second transaction"))
      : call(),
  );

/**
 * On a collector over `storage`: a round, 20 seeded honest reports (kept) and 3
 * crafted all-ones ones (dropped: view 0 once, the last view twice), sent once.
 */
async function scenario(storage: CollectorStorage) {
  const collector = await startCollector({ storage, adminToken: TOKEN, unaryReportCheck: ALPHA });
  const { round, plan } = await createRound(collector.url, UNARY_ROUND);
  const last = plan.views.length - 1;
  const rng = seededRng(5);
  const honest = Array.from({ length: 20 }, (_, i) =>
    createReport(plan, [1, 2, 3], { view: i % plan.views.length, rng }),
  );
  const crafted = [allOnesReport(plan, 0), allOnesReport(plan, last), allOnesReport(plan, last)];
  const perView = new Array<number>(plan.views.length).fill(0);
  perView[0] = 1;
  perView[last] = 2;
  const send = (reports: WireReport[]) =>
    call(`${collector.url}/v1/rounds/${round}/reports`, "POST", { round, reports });
  const status = async () => (await call(`${collector.url}/v1/rounds/${round}/status`, "GET")).body as Status;
  return { collector, round, plan, honest, crafted, perView, send, status };
}

describeWith(
  postgresServer(),
  "PostgreSQL: a batch's dropped reports counted in its transaction, once",
  (service) => {
    it("a re-sent batch (alone, concurrently, through the careful path) counts its drops once", async () => {
      await withPostgresDatabase(service.url!, "drop_retry", async (url) => {
        const storage = await openPostgresStorage(url);
        const { collector, honest, crafted, perView, send, status } = await scenario(noSecondWrite(storage));
        try {
          // Only dropped reports: the fresh one-statement path; sent twice at once, then again.
          const [first, second] = await Promise.all([send(crafted), send(crafted)]);
          expect(first.body).toMatchObject({ acknowledged: 3, stored: 0, dropped: 3 });
          expect(second.body).toMatchObject({ acknowledged: 3, stored: 0, dropped: 3 });
          expect((await send(crafted)).status).toBe(200);
          let now = await status();
          expect(now.unaryDropped).toMatchObject({ reports: 3, perView });
          expect(now.duplicates).toBe(6); // every copy of a dropped report after the first
          // Honest and crafted together, then the same batch again: its stored ids send it the careful way.
          const ack = await send([...honest, ...crafted]);
          expect(ack.body).toMatchObject({ acknowledged: 23, stored: 20, duplicates: 0, dropped: 3 });
          const retry = await send([...honest, ...crafted]);
          expect(retry.body).toMatchObject({ acknowledged: 23, stored: 0, duplicates: 20, dropped: 3 });
          now = await status();
          expect(now.accepted).toBe(20);
          expect(now.unaryDropped).toMatchObject({ reports: 3, perView });
          // Every acknowledged report is counted once: accepted, duplicate or dropped.
          expect(now.accepted + now.duplicates + now.unaryDropped.reports).toBe(3 * 3 + 2 * 23);
        } finally {
          await collector.close();
        }
      });
    });

    it("a closed round counts nothing; dropping its ids removes the dropped ids and keeps the count", async () => {
      await withPostgresDatabase(service.url!, "drop_closed", async (url) => {
        const storage = await openPostgresStorage(url);
        const { collector, round, plan, crafted, perView, send, status } = await scenario(storage);
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        const idsHeld = async () =>
          Number((await client.query("SELECT count(*) FROM calm_dropped_reports")).rows[0].count);
        try {
          await send(crafted);
          expect(await idsHeld()).toBe(3);
          await call(`${collector.url}/v1/rounds/${round}/close`, "POST");
          const late = await send([allOnesReport(plan, 0)]);
          expect(late.status).toBe(409);
          expect((await status()).unaryDropped).toMatchObject({ reports: 3, perView });
          await storage.dropClosedIds(new Date(Date.now() + 60_000), new Date());
          expect(await idsHeld()).toBe(0);
          expect((await status()).unaryDropped).toMatchObject({ reports: 3, perView });
        } finally {
          await client.end();
          await collector.close();
        }
      });
    });

    it("broken variant: stored, then counted in a second write, a re-sent batch counts its drops twice", async () => {
      await withPostgresDatabase(service.url!, "drop_twice", async (url) => {
        const storage = withoutMethod(await openPostgresStorage(url), "storeReportsAndDrops");
        const { collector, crafted, send, status } = await scenario(storage);
        try {
          await send(crafted);
          await send(crafted);
          expect((await status()).unaryDropped.reports).toBe(6); // what the first test would catch
        } finally {
          await collector.close();
        }
      });
    });
  },
);
