import { join } from "node:path";
import { type CalmPlan, planCalm } from "@calm-ldp/calm-core";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import type { CollectorStorage, RoundReads, StoredRound } from "../src/api.js";
import { openStorage } from "../src/index.js";
import { roundReadsOf, roundStatus } from "../src/round-reads.js";
import { suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import {
  acceptedReport,
  databaseServers,
  fixedId,
  roundToStore,
  sleep,
  withPostgresDatabase,
  withTempDir,
} from "./support.js";

/**
 * The batched reads of many rounds (`storage.roundReads()`, storage/<backend>/campaign-summary.ts)
 * answer what the per-round reads answer, round for round and in the order asked, on
 * DuckDB, PostgreSQL and the two-shard ClickHouse cluster: rounds of two plans (one
 * with a view of 512 cells, kept as group counts on DuckDB), open, closed, closed
 * with their ids dropped (counts kept at closing), empty, with duplicates and refusals.
 */
const { postgres, clickhouse } = databaseServers("batched round reads");

const narrow = planCalm({ schema: uniformSchema(4, 2), eps: 1, k: 2, n: 1000 });
const wide = planCalm({ schema: uniformSchema(3, 8), eps: 1, k: 3, n: 1000 });

/** `count` reports (ids from `first`) spread over the plan's views, each supporting one or two cells. */
function reports(plan: CalmPlan, first: number, count: number) {
  return Array.from({ length: count }, (_, i) => {
    const view = i % plan.views.length;
    const cells = plan.views[view]!.cells;
    const cell = (i * 7) % cells;
    return acceptedReport(first + i, view, i % 3 === 0 ? [cell, (cell + 1) % cells] : [cell]);
  });
}

/** Five rounds in every state a listing shows; returned newest first (not the storage's order). */
async function seed(storage: CollectorStorage): Promise<StoredRound[]> {
  const rounds: StoredRound[] = [];
  for (const [i, plan] of [narrow, wide, narrow, wide, narrow].entries())
    rounds.push(await storage.createRound(roundToStore(plan, fixedId(9000 + i))));
  const [dropped, closed, open, wideOpen] = rounds as [StoredRound, StoredRound, StoredRound, StoredRound];
  await storage.storeReports(dropped, reports(dropped.plan, 0, 60));
  await storage.storeReports(dropped, reports(dropped.plan, 50, 20)); // 10 duplicates
  await storage.countRejected(dropped, "schema", 4);
  // Reports dropped per view (the per-report unary check's counters): kept when the ids go.
  await storage.countDropped!(dropped, "unary-count", [3]);
  await storage.countDropped!(dropped, "unary-count", [2]);
  await storage.storeReports(closed, reports(closed.plan, 100, 45));
  await storage.storeReports(open, reports(open.plan, 200, 33));
  await storage.countRejected(open, "unknown-view", 2);
  await storage.countRejected(open, "schema", 1);
  await storage.countDropped!(open, "unary-count", [2]);
  await storage.countDropped!(open, "unary-count", [0]); // nothing to add: no write
  await storage.storeReports(wideOpen, reports(wideOpen.plan, 300, 70));
  // rounds[4]: no reports at all.
  const at = new Date("2026-01-02T00:00:00Z");
  await storage.closeRound(dropped, at);
  await storage.closeRound(closed, at);
  // ClickHouse drops only rounds closed two request timeouts before `at`: a day later.
  const later = new Date(at.getTime() + 86_400_000);
  const gone = await storage.dropClosedIds(new Date(at.getTime() + 1), later);
  expect(gone.sort()).toEqual([dropped.id, closed.id].sort());
  // ClickHouse deletes the rows by an asynchronous mutation: wait until it is done (seconds at most).
  for (let i = 0; i < 100 && (await storage.heldIds(dropped)) + (await storage.heldIds(closed)) > 0; i++)
    await sleep(100);
  await storage.storeReports(open, reports(open.plan, 400, 5));
  await storage.closeRound(open, new Date(later.getTime() + 1000));
  return rounds.reverse();
}

/**
 * Where `reads` differ from the per-round reads of `rounds` (`kind:round id`): none
 * when every state, status and support count is the same.
 */
async function mismatches(storage: CollectorStorage, reads: RoundReads, rounds: StoredRound[]) {
  const [states, statuses, support] = await Promise.all([
    reads.states(rounds),
    reads.statuses(rounds),
    reads.support(rounds),
  ]);
  const wrong: string[] = [];
  for (const [i, round] of rounds.entries()) {
    const same = (a: unknown, b: unknown) => {
      try {
        expect(a).toEqual(b);
        return true;
      } catch {
        return false;
      }
    };
    if (!same(states[i], await storage.roundState(round))) wrong.push(`state:${round.id}`);
    if (!same(statuses[i], await roundStatus(storage, round))) wrong.push(`status:${round.id}`);
    if (!same(support[i], await storage.supportCounts(round))) wrong.push(`support:${round.id}`);
  }
  return wrong;
}

async function scenario(storage: CollectorStorage) {
  try {
    const rounds = await seed(storage);
    const reads = storage.roundReads!();
    // The scenario is not vacuous: dropped ids, counts, refusals and duplicates differ by round.
    const statuses = await reads.statuses(rounds);
    expect(statuses.map((s) => [s.counts.accepted, s.idsHeld, s.state.closedAt !== null])).toEqual([
      [0, 0, false],
      [70, 70, false],
      [38, 38, true],
      [45, 0, true],
      [70, 0, true],
    ]);
    expect(statuses.map((s) => [s.counts.duplicates, s.counts.rejected])).toEqual([
      [0, {}],
      [0, {}],
      [0, { "unknown-view": 2, schema: 1 }],
      [0, {}],
      [10, { schema: 4 }],
    ]);
    expect(statuses.map((s) => s.counts.dropped)).toEqual([
      {},
      {},
      { "unary-count": [2] },
      {},
      { "unary-count": [5] },
    ]);
    expect(await mismatches(storage, reads, rounds)).toEqual([]);
    expect(await mismatches(storage, reads, rounds.slice(1, 3))).toEqual([]);
    expect(await mismatches(storage, reads, [])).toEqual([]);
    // The collector's chunked wrapper answers the same.
    expect(await mismatches(storage, roundReadsOf(storage), rounds)).toEqual([]);
    // A broken variant (answers in the storage's order, not the order asked) is caught.
    const byNumber = (asked: readonly StoredRound[]) => [...asked].sort((a, b) => a.no - b.no);
    const broken: RoundReads = {
      states: (asked) => reads.states(byNumber(asked)),
      statuses: (asked) => reads.statuses(byNumber(asked)),
      support: (asked) => reads.support(byNumber(asked)),
    };
    expect((await mismatches(storage, broken, rounds)).length).toBeGreaterThan(0);
  } finally {
    await storage.close();
  }
}

describe("batched round reads equal the per-round reads", () => {
  it("DuckDB", async () => {
    await withTempDir(async (dir) => scenario(await openStorage({ duckdb: join(dir, "r.duckdb") })));
  });

  it.skipIf(postgres.unavailable !== undefined)("PostgreSQL", async () => {
    await withPostgresDatabase(postgres.url!, "round_reads", async (url) =>
      scenario(await openStorage({ postgres: url })),
    );
  });

  describe.skipIf(clickhouse.unavailable !== undefined)("ClickHouse", () => {
    const url = suiteClickhouseDatabase(clickhouse.url ?? "", "round_reads");
    it("two shards", async () => scenario(await openStorage({ clickhouse: url })));
  });
});
