import { rmSync } from "node:fs";
import { join } from "node:path";
import type { WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type CollectorStorage, StorageError, simulateUsers, startCollector } from "../src/index.js";
import {
  type CollectorProcess,
  call,
  createRound,
  inProcessAnswers,
  mixedRecords,
  roundBody,
  spawnCollector,
  TOKEN,
  tempDir,
} from "./support.js";

describe("crash: kill -9 in the middle of a load", () => {
  const dir = tempDir();
  const file = join(dir, "crash.duckdb");
  const processes: CollectorProcess[] = [];
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null) await p.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("after a restart on the same database every acknowledged report is counted exactly once", async () => {
    const first = await spawnCollector("duckdb", file);
    processes.push(first);
    const n = 30_000;
    const records = mixedRecords(n, 7);
    const { round, plan } = await createRound(first.url, roundBody(records, 1, 2, n));

    const acknowledged = new Map<string, WireReport>();
    let acknowledgedBeforeKill: string[] = [];
    let second: CollectorProcess | undefined;
    const load = simulateUsers({
      url: first.url,
      round,
      plan,
      records,
      concurrency: 8,
      batchSize: 50,
      rng: seededRng(8),
      retryForMs: 60_000,
      onAcknowledged: (reports) => {
        for (const report of reports) acknowledged.set(report.id, report);
      },
    });
    // Bounded wait for a fifth of the load, then kill -9 and restart on the same file and port.
    for (let waited = 0; acknowledged.size < n / 5 && waited < 60_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(acknowledged.size).toBeGreaterThanOrEqual(n / 5);
    await first.kill("SIGKILL");
    acknowledgedBeforeKill = [...acknowledged.keys()];
    expect(acknowledgedBeforeKill.length).toBeLessThan(n);
    second = await spawnCollector("duckdb", file, first.port);
    processes.push(second);
    const result = await load;

    console.log(
      `crash test: ${acknowledgedBeforeKill.length} of ${n} acknowledged before kill -9; ${result.retries} retried attempts; ${result.duplicates} reports acknowledged again as duplicates`,
    );
    // Clients did retry, and in the end every user was acknowledged.
    expect(result.retries).toBeGreaterThan(0);
    expect(result).toMatchObject({ users: n, acknowledged: n, rejected: 0, unacknowledged: 0 });
    expect(acknowledged.size).toBe(n);
    const status = await call(`${second.url}/v1/rounds/${round}/status`, "GET");
    expect(status.body.accepted).toBe(n);
    expect(status.body.duplicates).toBe(result.duplicates);

    const { aggregator, answers } = inProcessAnswers(plan, acknowledged.values(), [
      [0, 1],
      [2, 3, 5],
      [1, 4],
    ]);
    expect(status.body.perView).toEqual(aggregator.reportsPerView());
    for (const [i, attrs] of ["0,1", "2,3,5", "1,4"].entries()) {
      const answer = await call(`${second.url}/v1/rounds/${round}/marginals?attrs=${attrs}`, "GET");
      expect(answer.body.cells, attrs).toEqual(answers[i]);
    }

    // Stop the collector and look at the file itself: every report acknowledged before
    // the kill is there, each id once, and the support rows match the in-process counts.
    await second.kill("SIGTERM");
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    const rows = await connection.runAndReadAll(
      "SELECT count(*)::DOUBLE, count(DISTINCT report_id)::DOUBLE FROM calm_reports",
    );
    expect(rows.getRows()[0]).toEqual([n, n]);
    await connection.run("CREATE TABLE before_kill (id UUID)");
    const appender = await connection.createAppender("before_kill");
    for (const id of acknowledgedBeforeKill) {
      appender.appendVarchar(id);
      appender.endRow();
    }
    appender.closeSync();
    const present = await connection.runAndReadAll(
      "SELECT count(*)::DOUBLE FROM before_kill JOIN calm_reports ON report_id = id",
    );
    expect(present.getRows()[0]![0]).toBe(acknowledgedBeforeKill.length);
    connection.closeSync();
    instance.closeSync();
    const storage = await openDuckDbStorage(file);
    const counts = await storage.supportCounts((await storage.findRound(round))!);
    aggregator.views.forEach((view, v) => {
      expect(Array.from(counts.support[v]!)).toEqual(Array.from(view.counts()));
    });
    await storage.close();
  });

  it("a batch stored but never acknowledged (the answer lost) is acknowledged as duplicates on retry and counted once", async () => {
    const storage = await openDuckDbStorage(join(dir, "lost-answers.duckdb"));
    // Every third store commits, then fails as if the connection dropped before the answer.
    let stores = 0;
    const lossy: CollectorStorage = {
      backend: storage.backend,
      createRound: (round) => storage.createRound(round),
      findRound: (id) => storage.findRound(id),
      storeReports: async (round, reports) => {
        const result = await storage.storeReports(round, reports);
        if (++stores % 3 === 0) throw new StorageError("answer lost after commit");
        return result;
      },
      countRejected: (round, reason, reports) => storage.countRejected(round, reason, reports),
      closeRound: (round, at) => storage.closeRound(round, at),
      roundState: (round) => storage.roundState(round),
      heldIds: (round) => storage.heldIds(round),
      dropClosedIds: (closedBefore, at) => storage.dropClosedIds(closedBefore, at),
      counts: (round) => storage.counts(round),
      supportCounts: (round) => storage.supportCounts(round),
      ping: () => storage.ping(),
      close: () => storage.close(),
    };
    const collector = await startCollector({ storage: lossy, adminToken: TOKEN });
    try {
      const n = 6000;
      const records = mixedRecords(n, 9);
      const { round, plan } = await createRound(collector.url, roundBody(records, 1, 2, n));
      const acknowledged = new Map<string, WireReport>();
      const result = await simulateUsers({
        url: collector.url,
        round,
        plan,
        records,
        concurrency: 4,
        batchSize: 50,
        rng: seededRng(10),
        onAcknowledged: (reports) => {
          for (const report of reports) acknowledged.set(report.id, report);
        },
      });
      expect(result.retries).toBeGreaterThan(0);
      expect(result.duplicates).toBeGreaterThan(0);
      expect(result).toMatchObject({ users: n, acknowledged: n, unacknowledged: 0 });
      const status = await call(`${collector.url}/v1/rounds/${round}/status`, "GET");
      expect(status.body.accepted).toBe(n);
      // The server also counted the duplicates of retries whose answers were lost again.
      expect(status.body.duplicates).toBeGreaterThanOrEqual(result.duplicates);
      const { answers } = inProcessAnswers(plan, acknowledged.values(), [[0, 1, 2]]);
      const answer = await call(`${collector.url}/v1/rounds/${round}/marginals?attrs=0,1,2`, "GET");
      expect(answer.body.cells).toEqual(answers[0]);
    } finally {
      await collector.close();
    }
  });
});
