import { describe, expect, it } from "vitest";
import type { AcceptedReport, StoredRound } from "../../api.js";
import { HeldIds } from "./held-ids.js";
import type { ShardHttp } from "./http.js";
import { ShardWriter } from "./shard-writer.js";

/**
 * A shard that answers like an empty ClickHouse one (no id held, no copies,
 * round open) and records the writer's requests; each insert takes `insertMs`.
 */
function fakeShard(insertMs: number, blocks: readonly number[] = []) {
  const calls: string[] = [];
  const checks: string[] = [];
  const shard = {
    async queryWithIds(sql: string) {
      const check = sql.includes("HAVING count() > 1");
      calls.push(check ? "check" : "lookup");
      if (!check) return [];
      // The table's highest block as the check reads it (`blocks` in turn, then none).
      checks.push(sql);
      const block = blocks[checks.length - 1];
      return block === undefined ? [] : [["block", String(block)]];
    },
    async insertBinary() {
      calls.push("insert");
      await new Promise((resolve) => setTimeout(resolve, insertMs));
    },
    async query() {
      calls.push("query");
      return [];
    },
  };
  return { shard: shard as unknown as ShardHttp, calls, checks };
}

const round = { no: 7 } as StoredRound;
let next = 0;
const job = (n: number): AcceptedReport[] =>
  Array.from({ length: n }, () => {
    next++;
    return { id: `00000000-0000-4000-8000-${next.toString(16).padStart(12, "0")}`, view: 0, cells: [1] };
  });
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A one-group-at-a-time writer on `shard` and the sizes of its groups, in order. */
function observedWriter(shard: ConstructorParameters<typeof ShardWriter>[0], gatherMs: number) {
  const sizes: number[] = [];
  const writer = new ShardWriter(shard, "db", new HeldIds(1000), {
    pipeline: 1,
    maxGroupReports: 10_000,
    failure: (error) => error,
    gatherMs,
  });
  writer.observe((group) => sizes.push(group.size));
  return { writer, sizes };
}

/**
 * Eight requests answered by one group come back one per event-loop turn (as a
 * load generator's do), then a check of how many groups took them. Inserts
 * take 100 ms and gathering up to that (`gatherMs` 1,000, bounded by the last
 * group's duration), so a stall of the test process shorter than that cannot
 * split a group; `gatherMs` 0 is the writer without gathering.
 */
async function comeBack(gatherMs: number) {
  const { shard, calls } = fakeShard(100);
  const { writer, sizes } = observedWriter(shard, gatherMs);
  const first = await Promise.all(Array.from({ length: 8 }, () => writer.submit({ round, reports: job(5) })));
  expect(first).toEqual(Array.from({ length: 8 }, () => ({ stored: 5, duplicates: 0 })));
  const again: Promise<unknown>[] = [];
  for (let i = 0; i < 8; i++) {
    again.push(writer.submit({ round, reports: job(5) }));
    await tick();
  }
  await Promise.all(again);
  return { sizes, calls };
}

/**
 * Two sets of four clients, the second starting while the first's group is in
 * its insert; each client sends, awaits its answer, and sends again (3 times).
 */
async function twoSets(gatherMs: number) {
  const { shard } = fakeShard(100);
  const { writer, sizes } = observedWriter(shard, gatherMs);
  const client = async () => {
    for (let i = 0; i < 3; i++) {
      await writer.submit({ round, reports: job(5) });
      await tick();
    }
  };
  const first = Array.from({ length: 4 }, client);
  await new Promise((resolve) => setTimeout(resolve, 10));
  await Promise.all([...first, ...Array.from({ length: 4 }, client)]);
  return sizes;
}

describe("ShardWriter groups", () => {
  it("requests split over two groups come together into one: it waits for all that were in flight", async () => {
    // Group 1 holds the first set; the second set queued meanwhile, and group 2 waits for the first
    // set to come back rather than going with the second set alone (then 8 and the last 4).
    expect(await twoSets(1000)).toEqual([20, 40, 40, 20]);
    // Without gathering the two sets stay apart.
    expect(await twoSets(0)).toEqual([20, 20, 20, 20, 20, 20]);
  });

  it("each group is looked up, inserted and checked once; the requests it answered come back into one group", async () => {
    const { sizes, calls } = await comeBack(1000);
    expect(sizes).toEqual([40, 40]);
    expect(calls).toEqual(["lookup", "insert", "check", "lookup", "insert", "check"]);
  });

  it("a check reads only the parts holding a block above the one the chain's previous check read", async () => {
    const { shard, checks } = fakeShard(0, [41, 40, 57]);
    const { writer } = observedWriter(shard, 0);
    for (let i = 0; i < 4; i++) await writer.submit({ round, reports: job(3) });
    const since = checks.map((sql) => Number(/_part\)\[3\]\) > (\d+)/.exec(sql)?.[1]));
    // The first group reads every part; a lower block read later (not possible in ClickHouse) is not taken.
    expect(since).toEqual([0, 41, 41, 57]);
  });

  it("without gathering (the broken variant) the returning requests split over several groups", async () => {
    const { sizes } = await comeBack(0);
    expect(sizes.length).toBeGreaterThan(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(80);
  });
});
