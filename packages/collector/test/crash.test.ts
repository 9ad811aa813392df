import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDuckDbStorage } from "../src/duckdb.js";
import { StorageError } from "../src/index.js";
import {
  duckdbCollectors,
  expectStoredCounts,
  interceptedStorage,
  startMixedLoad,
  storedReportIds,
  suiteProcesses,
} from "./support.js";

describe("crash: kill -9 in the middle of a load", () => {
  const collectors = duckdbCollectors();
  const file = join(collectors.dir, "crash.duckdb");
  const processes = suiteProcesses();

  it("after a restart on the same database every acknowledged report is counted exactly once", async () => {
    const first = await processes.spawn("duckdb", file);
    const n = 30_000;
    const { round, load } = await startMixedLoad(first.url, n, 7, {
      batchSize: 50,
      retryForMs: 60_000,
    });
    // Bounded wait for a fifth of the load, then kill -9 and restart on the same file and port.
    await load.until(n / 5);
    await first.kill("SIGKILL");
    const acknowledgedBeforeKill = [...load.acknowledged.keys()];
    expect(acknowledgedBeforeKill.length).toBeLessThan(n);
    const second = await processes.spawn("duckdb", file, first.port);
    const result = await load.finish();

    console.log(
      `crash test: ${acknowledgedBeforeKill.length} of ${n} acknowledged before kill -9; ${result.retries} retried attempts; ${result.duplicates} reports acknowledged again as duplicates`,
    );
    // Clients did retry, and in the end every user was acknowledged.
    expect(result.retries).toBeGreaterThan(0);
    expect(load.acknowledged.size).toBe(n);
    const { status, aggregator } = await load.expectCountedOnce(second.url, {
      "0,1": [0, 1],
      "2,3,5": [2, 3, 5],
      "1,4": [1, 4],
    });
    expect(status.duplicates).toBe(result.duplicates);

    // Stop the collector and look at the file itself: every report acknowledged before
    // the kill is there, each id once, and the support rows match the in-process counts.
    await second.kill("SIGTERM");
    const stored = await storedReportIds(file);
    expect([stored.length, new Set(stored).size]).toEqual([n, n]);
    const ids = new Set(stored);
    expect(acknowledgedBeforeKill.filter((id) => ids.has(id)).length).toBe(acknowledgedBeforeKill.length);
    const storage = await openDuckDbStorage(file);
    await expectStoredCounts(storage, round, aggregator!);
    await storage.close();
  });

  it("a batch stored but never acknowledged (the answer lost) is acknowledged as duplicates on retry and counted once", async () => {
    // Every third store commits, then fails as if the connection dropped before the answer.
    let stores = 0;
    const { collector } = await collectors.start("lost-answers.duckdb", {}, (storage) =>
      interceptedStorage(storage, async (method, call) => {
        const result = await call();
        if (method === "storeReports" && ++stores % 3 === 0)
          throw new StorageError("answer lost after commit");
        return result;
      }),
    );
    const n = 6000;
    const { load } = await startMixedLoad(collector.url, n, 9, { concurrency: 4, batchSize: 50 });
    const result = await load.done;
    expect(result.retries).toBeGreaterThan(0);
    expect(result.duplicates).toBeGreaterThan(0);
    expect(result).toMatchObject({ users: n, acknowledged: n, unacknowledged: 0 });
    const { status } = await load.expectCountedOnce(collector.url, {
      "0,1,2": [0, 1, 2],
    });
    // The server also counted the duplicates of retries whose answers were lost again.
    expect(status.duplicates).toBeGreaterThanOrEqual(result.duplicates);
  });
});
