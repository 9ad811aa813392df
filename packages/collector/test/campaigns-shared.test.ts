import { createReport, type WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import {
  type CollectorProcess,
  call,
  createBinaryCampaign,
  databaseServers,
  suiteProcesses,
  withPostgresDatabase,
} from "./support.js";

/**
 * Two collector processes on ONE database, a campaign rolling over every second,
 * hammered by clients that ask either process for the open round and report to
 * either process, across several roll-overs. Both processes see each window end
 * at about the same time and both open the next round: the round of index i has
 * the id derived from (campaign, i), so they open the same round (PostgreSQL: a
 * unique id, insert-or-read; ClickHouse: the same round number, readers
 * de-duplicate). Asserted: the rounds' indexes are 0, 1, ..., R-1 with no index
 * twice, both processes list the same rounds, and every acknowledged report is
 * counted once, in the round it was sent to.
 */
const { postgres, clickhouse } = databaseServers("shared campaigns");

const WORKERS = 8;
const BATCH = 5;
const LOAD_MS = 7000;
const ROUND_MS = 1000;

type Described = { rounds: { round: string; index: number; openedAt: string; closedAt: string | null }[] };

async function hammer(processes: readonly CollectorProcess[]) {
  const [a, b] = processes as [CollectorProcess, CollectorProcess];
  const { campaign, plan } = await createBinaryCampaign(a.url, { roundEvery: ROUND_MS });
  const acknowledged = new Map<string, number>();
  let refused = 0;
  let noOpenRound = 0;
  const deadline = Date.now() + LOAD_MS;
  const worker = async (w: number) => {
    const rng = seededRng(100 + w);
    for (let turn = 0; Date.now() < deadline; turn++) {
      // Ask one process for the open round, report to the same or the other one.
      const asked = (w + turn) % 2 === 0 ? a : b;
      const sent = (w + (turn >> 1)) % 2 === 0 ? a : b;
      const current = await call(`${asked.url}/v1/campaigns/${campaign}/current`, "GET");
      if (current.status === 404 && current.body.reason === "no-open-round") {
        noOpenRound++;
        continue;
      }
      expect(current.status).toBe(200);
      const round = current.body.round as string;
      const reports: WireReport[] = Array.from({ length: BATCH }, (_, i) =>
        createReport(plan, [i & 1, (i >> 1) & 1, turn & 1, w & 1], { rng }),
      );
      const answer = await call(`${sent.url}/v1/rounds/${round}/reports`, "POST", { round, reports });
      if (answer.status === 409 && answer.body.reason === "round-closed") {
        refused++;
        continue;
      }
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body).toMatchObject({ acknowledged: BATCH, stored: BATCH, duplicates: 0 });
      acknowledged.set(round, (acknowledged.get(round) ?? 0) + BATCH);
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));

  const fromA = (await call(`${a.url}/v1/campaigns/${campaign}`, "GET")).body as unknown as Described;
  const fromB = (await call(`${b.url}/v1/campaigns/${campaign}`, "GET")).body as unknown as Described;
  // A failed read (an error body, no rounds) is reported with what the collector said.
  expect(fromA.rounds, JSON.stringify(fromA)).toBeInstanceOf(Array);
  expect(fromB.rounds, JSON.stringify(fromB)).toBeInstanceOf(Array);
  const indexes = fromA.rounds.map((r) => r.index);
  // A read may roll over once more: B lists A's rounds (same ids and indexes), perhaps with one more.
  // (Opening/closing times may differ by milliseconds on ClickHouse: two racers' rows, see campaigns.ts.)
  const pairs = (list: Described) => list.rounds.map((r) => [r.round, r.index]);
  expect(pairs(fromB).slice(0, fromA.rounds.length)).toEqual(pairs(fromA));
  expect(fromB.rounds.length - fromA.rounds.length).toBeLessThanOrEqual(1);
  for (const list of [fromA, fromB])
    expect(list.rounds.slice(0, -1).every((r) => r.closedAt !== null)).toBe(true);
  const rounds = fromB.rounds;
  const perRound: [number, number, number][] = [];
  for (const r of rounds) {
    const status = await call(`${a.url}/v1/rounds/${r.round}/status`, "GET");
    perRound.push([r.index, acknowledged.get(r.round) ?? 0, status.body.accepted as number]);
  }
  const unknown = [...acknowledged.keys()].filter((id) => !rounds.some((r) => r.round === id));
  const total = [...acknowledged.values()].reduce((s, x) => s + x, 0);
  console.log(
    `shared campaign: ${rounds.length} rounds, ${total} reports acknowledged, ${refused} batches refused (round-closed), ` +
      `${noOpenRound} no-open-round; per round [index, acknowledged, counted]: ${JSON.stringify(perRound)}`,
  );
  return { indexes, rounds: rounds.map((r) => r.index), perRound, unknown, total };
}

function check(result: Awaited<ReturnType<typeof hammer>>) {
  // Exactly one round per index, in order; several roll-overs happened under load.
  expect(result.indexes).toEqual(result.indexes.map((_, i) => i));
  expect(result.rounds).toEqual(result.rounds.map((_, i) => i));
  expect(result.rounds.length).toBeGreaterThanOrEqual(4);
  // Every acknowledged report counted once, in its round; none went to an unlisted round.
  expect(result.unknown).toEqual([]);
  for (const [index, acknowledged, counted] of result.perRound)
    expect({ index, counted }).toEqual({ index, counted: acknowledged });
  expect(result.perRound.filter(([, acknowledged]) => acknowledged > 0).length).toBeGreaterThanOrEqual(3);
}

describe("a scheduled campaign shared by two collector processes", () => {
  const processes = suiteProcesses("SIGTERM");

  it.skipIf(postgres.unavailable !== undefined)(
    "PostgreSQL: one round per index, every acknowledged report counted once",
    async () => {
      await withPostgresDatabase(postgres.url!, "shared", async (url) => {
        const pair = [await processes.spawn("postgres", url), await processes.spawn("postgres", url)];
        check(await hammer(pair));
        await Promise.all(pair.map((p) => p.kill("SIGTERM")));
      });
    },
    120_000,
  );

  describe.skipIf(clickhouse.unavailable !== undefined)("ClickHouse", () => {
    const url = suiteClickhouseDatabase(clickhouse.url ?? "", "shared_campaign");
    it("two shards: one round per index, every acknowledged report counted once", async () => {
      const pair = [await processes.spawn("clickhouse", url), await processes.spawn("clickhouse", url)];
      check(await hammer(pair));
      await Promise.all(pair.map((p) => p.kill("SIGTERM")));
    }, 180_000);
  });
});
