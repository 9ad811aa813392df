import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, describe, expect, it } from "vitest";
import { simulateUsers } from "../src/index.js";
import {
  type CollectorProcess,
  call,
  createRound,
  inProcessAnswers,
  mixedRecords,
  roundBody,
  spawnCollector,
  tempDir,
} from "./support.js";

/**
 * A real disk that fills up: a small tmpfs mounted for this test (root, or
 * passwordless sudo). As root, `chmod` does not stop writes, so a full file
 * system is the honest way to make DuckDB's writes fail. Under CI a missing
 * mount fails the suite; elsewhere it is skipped, loudly.
 */
function mountSmallDisk(dir: string): { sudo: string[]; unavailable?: string } {
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  try {
    const [file, ...args] = [...sudo, "mount", "-t", "tmpfs", "-o", "size=128m", "tmpfs", dir];
    execFileSync(file!, args, { stdio: ["ignore", "ignore", "pipe"] });
    return { sudo };
  } catch (error) {
    const why = `cannot mount a tmpfs (needs root or passwordless sudo): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
    if (process.env.CI) throw new Error(`DuckDB fault test: ${why}`);
    return { sudo, unavailable: why };
  }
}

/** Write zeros to `file` until the file system refuses (ENOSPC), in 1 MiB then 4 KiB pieces. */
function fillUp(file: string): void {
  const fd = openSync(file, "w");
  try {
    for (const size of [1 << 20, 4096, 512]) {
      const zeros = Buffer.alloc(size);
      for (;;) {
        try {
          writeSync(fd, zeros);
        } catch (error) {
          if ((error as { code?: string }).code !== "ENOSPC") throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dir = tempDir();
const disk = join(dir, "disk");
mkdirSync(disk);
const mounted = mountSmallDisk(disk);
if (mounted.unavailable)
  console.warn(`\n*** SKIPPED: DuckDB disk-full fault test: ${mounted.unavailable} ***\n`);

describe.skipIf(mounted.unavailable !== undefined)("DuckDB faults: the disk fills up under load", () => {
  const file = join(disk, "faults.duckdb");
  const filler = join(disk, "filler");
  const processes: CollectorProcess[] = [];
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null) await p.kill("SIGKILL");
    const [umount, ...args] = [...mounted.sudo, "umount", disk];
    execFileSync(umount!, args);
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 503 (never a crash, never an acknowledgement) while the disk is full, then resumes: each acknowledged report counted once", async () => {
    const collector = await spawnCollector("duckdb", file);
    processes.push(collector);
    const n = 100_000;
    const records = mixedRecords(n, 41);
    const { round, plan } = await createRound(collector.url, roundBody(records, 1, 2, n));
    const acknowledged = new Map<string, WireReport>();
    const load = simulateUsers({
      url: collector.url,
      round,
      plan,
      records,
      concurrency: 8,
      batchSize: 100,
      rng: seededRng(42),
      retryForMs: 60_000,
      onAcknowledged: (reports) => {
        for (const report of reports) acknowledged.set(report.id, report);
      },
    });
    for (let waited = 0; acknowledged.size < n / 3 && waited < 60_000; waited += 10) await sleep(10);
    expect(acknowledged.size).toBeGreaterThanOrEqual(n / 3);

    // Fill the file system: every byte that is left goes to a filler file.
    fillUp(filler);
    expect(Number(statfsSync(disk).bavail)).toBeLessThan(64);
    // The next commits fail: /healthz turns 503 (a failed commit, then a failing probe write).
    let health: Response | undefined;
    for (let waited = 0; waited < 20_000; waited += 50) {
      health = await fetch(`${collector.url}/healthz`);
      if (health.status === 503) break;
      await sleep(50);
    }
    expect(health!.status).toBe(503);
    expect(health!.headers.get("retry-after")).toBe("1");
    expect(await health!.json()).toMatchObject({ storage: "unavailable", backend: "duckdb" });
    const duringOutage = acknowledged.size;
    await sleep(1500);
    // Nothing was acknowledged while the disk stayed full.
    expect(acknowledged.size).toBe(duringOutage);
    expect(duringOutage).toBeLessThan(n);
    expect(collector.child.exitCode).toBeNull();
    expect(collector.stderr()).toMatch(
      /storage \(duckdb\) unavailable: DuckDB write failed: .*No space left on device.*503 storage-unavailable/,
    );

    rmSync(filler);
    const result = await load;
    console.log(
      `duckdb faults: disk filled after ${duringOutage} of ${n} acknowledged; ${result.retries} retried attempts; ${result.duplicates} acknowledged again as duplicates; ${result.seconds.toFixed(1)} s`,
    );
    expect(collector.child.exitCode).toBeNull();
    expect(collector.stderr()).toMatch(/storage \(duckdb\) available again after/);
    const after = await call(`${collector.url}/healthz`, "GET");
    expect(after.status).toBe(200);
    expect((after.body.refused as Record<string, number>)["storage-unavailable"]).toBeGreaterThan(0);
    expect(result.retries).toBeGreaterThan(0);
    expect(result).toMatchObject({ users: n, acknowledged: n, rejected: 0, unacknowledged: 0 });
    expect(acknowledged.size).toBe(n);
    const status = await call(`${collector.url}/v1/rounds/${round}/status`, "GET");
    expect(status.body.accepted).toBe(n);
    const { aggregator, answers } = inProcessAnswers(plan, acknowledged.values(), [[1, 2, 4]]);
    expect(status.body.perView).toEqual(aggregator.reportsPerView());
    const answer = await call(`${collector.url}/v1/rounds/${round}/marginals?attrs=q1,q2,q4`, "GET");
    expect(answer.body.cells).toEqual(answers[0]);

    // The file itself, after a clean stop: n rows, n distinct ids, all of them acknowledged ones.
    await collector.kill("SIGTERM");
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    const rows = await connection.runAndReadAll(
      "SELECT count(*)::DOUBLE, count(DISTINCT report_id)::DOUBLE FROM calm_reports",
    );
    expect(rows.getRows()[0]).toEqual([n, n]);
    const ids = await connection.runAndReadAll("SELECT report_id::VARCHAR FROM calm_reports");
    const stored = ids.getColumns()[0] as string[];
    expect(stored.every((id) => acknowledged.has(id))).toBe(true);
    connection.closeSync();
    instance.closeSync();
  });
});
