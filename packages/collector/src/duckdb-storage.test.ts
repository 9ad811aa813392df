import { rmSync } from "node:fs";
import { join } from "node:path";
import { planCalm } from "@calm-ldp/calm-core";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../test/support.js";
import type { AcceptedReport } from "./api.js";
import { openDuckDbStorage } from "./duckdb-storage.js";

const id = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

describe("DuckDB storage", () => {
  const dir = tempDir();
  const file = join(dir, "storage.duckdb");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const plan = planCalm({ schema: uniformSchema(4), n: 10_000, eps: 1, k: 2 }, { l: 2 }); // 6 views of 4 cells
  const report = (i: number, view: number, cells: number[]): AcceptedReport => ({ id: id(i), view, cells });

  it("stores each report id once, across batches of one group commit, across groups and across a restart", async () => {
    let storage = await openDuckDbStorage(file);
    const round = await storage.createRound({
      id: id(999),
      createdAt: "2026-01-01T00:00:00Z",
      plan,
      request: { schema: { attributes: [] }, eps: 1, k: 2, n: 1000 },
    });
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
});
