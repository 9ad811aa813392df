import { execFileSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  statfsSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectUnavailable } from "./outage.js";
import {
  CollectorProcesses,
  call,
  sleep,
  startMixedLoad,
  storedReportIds,
  tempDir,
  warnSkipped,
} from "./support.js";

/**
 * A real disk for one fault: `tmpfs` (a small memory disk, for a full disk) or
 * `ext4` (a loop-mounted image file, whose files can be made immutable:
 * `chattr +i` makes even root's writes through already-open descriptors fail
 * with EPERM, which tmpfs does not). Needs root or passwordless sudo: under CI a
 * missing mount fails the suite; elsewhere the test is skipped, loudly.
 */
function mountDisk(dir: string, kind: "tmpfs" | "ext4"): { sudo: string[]; unavailable?: string } {
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
  const run = (...command: string[]) => {
    const [file, ...args] = [...sudo, ...command];
    execFileSync(file!, args, { stdio: ["ignore", "ignore", "pipe"] });
  };
  try {
    if (kind === "tmpfs") run("mount", "-t", "tmpfs", "-o", "size=128m", "tmpfs", dir);
    else {
      const image = `${dir}.img`;
      closeSync(openSync(image, "w"));
      truncateSync(image, 128 * 2 ** 20);
      run("mkfs.ext4", "-q", "-F", image);
      run("mount", "-o", "loop", image, dir);
    }
    return { sudo };
  } catch (error) {
    const why = `cannot mount ${kind} (needs root or passwordless sudo): ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
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

const dir = tempDir();
const disks = {
  full: { path: join(dir, "full"), kind: "tmpfs" },
  readOnly: { path: join(dir, "read-only"), kind: "ext4" },
} as const;
const mounted = Object.fromEntries(
  Object.entries(disks).map(([name, disk]) => {
    mkdirSync(disk.path);
    const result = mountDisk(disk.path, disk.kind);
    warnSkipped(`DuckDB ${name} disk fault test`, result.unavailable);
    return [name, result];
  }),
) as Record<keyof typeof disks, ReturnType<typeof mountDisk>>;
const processes = new CollectorProcesses();
afterAll(async () => {
  await processes.killAll();
  for (const [name, disk] of Object.entries(disks)) {
    const { sudo, unavailable } = mounted[name as keyof typeof disks];
    if (unavailable) continue;
    const [chattr, ...args] = [...sudo, "chattr", "-R", "-i", disk.path];
    if (disk.kind === "ext4") execFileSync(chattr!, args, { stdio: "ignore" });
    const [umount, ...rest] = [...sudo, "umount", disk.path];
    execFileSync(umount!, rest);
  }
  rmSync(dir, { recursive: true, force: true });
});

/**
 * 100,000 reports through a collector process on a DuckDB file in `disk`; at a
 * third, `breakDisk()`; checks /healthz 503 + Retry-After, no acknowledgement for
 * 1.5 s, the process alive and a log line matching `logged`; then `repairDisk()`:
 * the load completes, each acknowledged report is counted once and the file holds
 * exactly the acknowledged ids. Returns what it measured, for the log.
 */
async function loadThroughFault(
  disk: string,
  breakDisk: () => void,
  repairDisk: () => void,
  logged: RegExp,
): Promise<string> {
  const file = join(disk, "faults.duckdb");
  const collector = await processes.spawn("duckdb", file);
  const n = 100_000;
  const { load } = await startMixedLoad(collector.url, n, 41, { retryForMs: 60_000 });
  const { acknowledged } = load;
  await load.until(n / 3);

  breakDisk();
  // The next commits fail: /readyz turns 503 (its probe write fails).
  let health: Response | undefined;
  for (let waited = 0; waited < 20_000; waited += 50) {
    health = await fetch(`${collector.url}/readyz`);
    if (health.status === 503) break;
    await sleep(50);
  }
  await expectUnavailable(health!, { storage: "unavailable", backend: "duckdb" });
  // A commit whose writes were done before the disk broke may still be acknowledged after the probe
  // failed (seen once under load: one more batch of 100); wait until acknowledgements stop (300 ms
  // without one, at most 10 s) before counting.
  let settled = acknowledged.size;
  for (let waited = 0; waited < 10_000; waited += 300) {
    await sleep(300);
    if (acknowledged.size === settled) break;
    settled = acknowledged.size;
  }
  const duringOutage = acknowledged.size;
  await sleep(1500);
  // Nothing was acknowledged while the disk stayed broken.
  expect(acknowledged.size).toBe(duringOutage);
  expect(duringOutage).toBeLessThan(n);
  expect(collector.child.exitCode).toBeNull();
  expect(collector.stderr()).toMatch(logged);

  repairDisk();
  const result = await load.finish();
  expect(collector.child.exitCode).toBeNull();
  expect(collector.stderr()).toMatch(/storage \(duckdb\) available again after/);
  const after = await call(`${collector.url}/readyz`, "GET");
  expect(after.status).toBe(200);
  expect((after.body.refused as Record<string, number>)["storage-unavailable"]).toBeGreaterThan(0);
  expect(result.retries).toBeGreaterThan(0);
  expect(acknowledged.size).toBe(n);
  await load.expectCountedOnce(collector.url, { "q1,q2,q4": [1, 2, 4] });

  // The file itself, after a clean stop: n rows, n distinct ids, all of them acknowledged ones.
  await collector.kill("SIGTERM");
  const stored = await storedReportIds(file);
  expect([stored.length, new Set(stored).size]).toEqual([n, n]);
  expect(stored.every((id) => acknowledged.has(id))).toBe(true);
  return `broken after ${duringOutage} of ${n} acknowledged; ${result.retries} retried attempts; ${result.duplicates} acknowledged again as duplicates; ${result.seconds.toFixed(1)} s`;
}

describe.skipIf(mounted.full.unavailable !== undefined)("DuckDB faults: the disk fills up under load", () => {
  it("answers 503 (never a crash, never an acknowledgement) while the disk is full, then resumes: each acknowledged report counted once", async () => {
    const filler = join(disks.full.path, "filler");
    const measured = await loadThroughFault(
      disks.full.path,
      () => {
        // Fill the file system: every byte that is left goes to a filler file.
        fillUp(filler);
        expect(Number(statfsSync(disks.full.path).bavail)).toBeLessThan(64);
      },
      () => rmSync(filler),
      /storage \(duckdb\) unavailable: DuckDB write failed: .*No space left on device.*503 storage-unavailable/,
    );
    console.log(`duckdb faults, disk full: ${measured}`);
  });
});

describe.skipIf(mounted.readOnly.unavailable !== undefined)(
  "DuckDB faults: the database file is made unwritable under load",
  () => {
    it("answers 503 while the file, its write-ahead log and their directory are immutable (EPERM even for root), then resumes once writable: each acknowledged report counted once", async () => {
      const disk = disks.readOnly.path;
      const { sudo } = mounted.readOnly;
      // The database file, its write-ahead log (if any) and the directory (no new files).
      const chattr = (flag: "+i" | "-i") => {
        const targets = readdirSync(disk)
          .filter((name) => name.startsWith("faults.duckdb"))
          .map((name) => join(disk, name));
        const [file, ...args] = [...sudo, "chattr", flag, ...targets, disk];
        execFileSync(file!, args);
      };
      const measured = await loadThroughFault(
        disk,
        () => {
          chattr("+i");
          expect(() => writeFileSync(join(disk, "probe"), "x")).toThrow(/EPERM/);
        },
        () => chattr("-i"),
        /storage \(duckdb\) unavailable: DuckDB write failed: .*Operation not permitted.*503 storage-unavailable/,
      );
      console.log(`duckdb faults, file made unwritable: ${measured}`);
    });
  },
);
