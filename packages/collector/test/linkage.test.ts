import { join } from "node:path";
import {
  createReporter,
  createTimeOrderedReportId,
  memoryStorage,
  type Reporter,
  sendReports,
} from "@calm-ldp/client";
import { reportIdTime } from "@calm-ldp/client/testing";
import { type Rng, seededRng, shuffle, uniformInt } from "@calm-ldp/random";
import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import type { AcceptedReport, CollectorStorage, StoredRound } from "../src/api.js";
import { createRound, duckdbCollectors } from "./support.js";

/**
 * Linkage audit of report ids: many simulated devices, each with its own skewed
 * clock (a stable offset, uniform in +-2 minutes) and a persistent reporter with
 * the instantaneous layer (`instantEps`: every report a fresh randomization, so
 * values do not link), report once per round over several rounds to a real
 * collector (DuckDB, loopback HTTP), each round in a fresh random order, 16
 * devices at a time. A linker sees everything the collector keeps and could log:
 * the stored rows (round, report id, view: read from the DuckDB file after the
 * collector closed) and, per stored batch, the collector's clock when the
 * storage received it and the batch's size (logged by a wrapper around the
 * storage, the operator's own view). For each report of round r it names the
 * report of round r + 1 of the same view whose id time minus arrival time (the
 * device's clock offset, if the id carries a clock) is nearest.
 *
 * Statistical test (one-sided, seeded): with ids that carry nothing, the true
 * pairing is a uniformly random bijection within each view group independent of
 * what the linker sees, so a report in a group of n is matched with probability
 * 1/n and the count of correct matches X has mean E = sum 1/n and variance at
 * most E (per group, fixed points of a random bijection against any fixed
 * choice: variance <= 1 = its mean). The default ids pass when
 * z = (X - E) / sqrt(E) <= 3 (p <= 0.0013 under the null); the same linker on
 * time-ordered (version 7) ids made with the device's clock must match most
 * reports (accuracy > 0.5 and z > 10): the test bites.
 */
const USERS = 200;
const ROUNDS = 3;
const IN_FLIGHT = 16;
const MAX_OFFSET_MS = 120_000;
const Z_BOUND = 3;

/** One stored batch as the operator can log it: when the storage received it (collector clock), and its reports. */
interface LoggedBatch {
  readonly at: number;
  readonly round: number;
  readonly reports: readonly { readonly id: string; readonly view: number }[];
}

/** `storage` with every `storeReports` call logged (arrival time on the collector's clock, round, ids, views). */
function loggedStorage(storage: CollectorStorage, log: LoggedBatch[]): CollectorStorage {
  return new Proxy(storage, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key !== "storeReports") return value.bind(target);
      return (round: StoredRound, reports: readonly AcceptedReport[]) => {
        log.push({ at: Date.now(), round: round.no, reports: reports.map(({ id, view }) => ({ id, view })) });
        return target.storeReports(round, reports);
      };
    },
  });
}

/** The rows of `calm_reports` (round number, id, view), read from the closed collector's DuckDB file. */
async function storedRows(file: string): Promise<{ round: number; id: string; view: number }[]> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    const result = await connection.runAndReadAll(
      "SELECT round_no::DOUBLE, report_id::VARCHAR, view::DOUBLE FROM calm_reports ORDER BY 2",
    );
    return result.getRows().map(([round, id, view]) => ({
      round: Number(round),
      id: String(id),
      view: Number(view),
    }));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** What the linker sees of one report: round, view, id, arrival (collector clock), and its batch's size. */
interface Observed {
  readonly round: number;
  readonly view: number;
  readonly id: string;
  readonly arrival: number;
  readonly batchSize: number;
}

/**
 * The linker: for each report of round r, the report of round r + 1 with the same
 * view whose (id time - arrival) is nearest; returns the pairs it names. Sees
 * nothing the collector does not store or log. O(reports^2 / views).
 */
function link(observed: readonly Observed[]): [string, string][] {
  const rounds = [...new Set(observed.map((o) => o.round))].sort((a, b) => a - b);
  const offset = (o: Observed) => reportIdTime(o.id) - o.arrival;
  const pairs: [string, string][] = [];
  for (let r = 0; r + 1 < rounds.length; r++) {
    const next = observed.filter((o) => o.round === rounds[r + 1]);
    for (const a of observed.filter((o) => o.round === rounds[r])) {
      let best: Observed | undefined;
      for (const b of next)
        if (b.view === a.view && b.batchSize === a.batchSize)
          if (!best || Math.abs(offset(b) - offset(a)) < Math.abs(offset(best) - offset(a))) best = b;
      if (best) pairs.push([a.id, best.id]);
    }
  }
  return pairs;
}

interface Audit {
  readonly trials: number;
  readonly correct: number;
  /** Expected correct matches by chance: sum over trials of 1 / (reports of the view in the next round). */
  readonly chance: number;
  readonly z: number;
}

/** Simulate the devices against a fresh collector, then run the linker on what it stored and logged. */
async function audit(
  collectors: ReturnType<typeof duckdbCollectors>,
  name: string,
  reportIds: ((offset: number, rng: Rng) => string) | undefined,
): Promise<Audit> {
  const file = `${name}.duckdb`;
  const log: LoggedBatch[] = [];
  const { collector } = await collectors.start(file, {}, (storage) => loggedStorage(storage, log));
  const body = {
    schema: { attributes: Array.from({ length: 5 }, (_, i) => ({ name: `a${i}`, labels: ["no", "yes"] })) },
    eps: 1,
    k: 2,
    n: 10_000,
  };
  const rounds: string[] = [];
  let plan: Awaited<ReturnType<typeof createRound>>["plan"] | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    const created = await createRound(collector.url, body);
    rounds.push(created.round);
    plan = created.plan;
  }
  const world = seededRng(31, name === "default" ? 1 : 2);
  const owner = new Map<string, number>();
  const reporters: Reporter[] = [];
  const records: number[][] = [];
  for (let u = 0; u < USERS; u++) {
    const rng = seededRng(31_000 + u);
    const offset = uniformInt(world, 2 * MAX_OFFSET_MS + 1) - MAX_OFFSET_MS;
    records.push(Array.from({ length: 5 }, () => uniformInt(world, 2)));
    reporters.push(
      await createReporter({
        plan: plan!,
        storage: memoryStorage(),
        maxEps: 10,
        instantEps: 1,
        campaign: name,
        rng,
        send: (round, reports) => sendReports(collector.url, round, reports),
        ...(reportIds ? { reportIds: (r: Rng) => reportIds(offset, r) } : {}),
      }),
    );
  }
  for (const round of rounds) {
    const order = shuffle(
      world,
      Array.from({ length: USERS }, (_, u) => u),
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < order.length) {
          const u = order[next++]!;
          const { report, flush } = await reporters[u]!.report(records[u]!, { round });
          expect(flush).toMatchObject({ sent: 1, pending: 0 });
          owner.set(report.id, u);
        }
      }),
    );
  }
  await collector.close();

  // What the linker sees: the stored rows, each with its arrival and batch size from the log.
  const rows = await storedRows(join(collectors.dir, file));
  const logged = new Map<string, { at: number; size: number }>();
  for (const batch of log)
    for (const r of batch.reports) logged.set(r.id, { at: batch.at, size: batch.reports.length });
  expect(rows).toHaveLength(USERS * ROUNDS);
  const observed: Observed[] = rows.map((row) => ({
    ...row,
    arrival: logged.get(row.id)!.at,
    batchSize: logged.get(row.id)!.size,
  }));
  const pairs = link(observed);
  const viewOf = new Map(observed.map((o) => [o.id, o]));
  let correct = 0;
  let chance = 0;
  for (const [a, b] of pairs) {
    if (owner.get(a) === owner.get(b)) correct++;
    const from = viewOf.get(a)!;
    const group = observed.filter((o) => o.round === viewOf.get(b)!.round && o.view === from.view).length;
    chance += 1 / group;
  }
  // Every report of rounds 0 .. ROUNDS-2 is a trial: its user reported in the next round, in the same view.
  expect(pairs).toHaveLength(USERS * (ROUNDS - 1));
  return { trials: pairs.length, correct, chance, z: (correct - chance) / Math.sqrt(chance) };
}

describe("linkage audit: what a report carries does not link a device's reports across rounds", () => {
  const collectors = duckdbCollectors();
  const summary = (a: Audit) =>
    `${a.correct} of ${a.trials} matched (${((100 * a.correct) / a.trials).toFixed(1)}%), chance ${a.chance.toFixed(1)}, z = ${a.z.toFixed(2)}`;

  it(`default (random version-4) ids: ${USERS} devices with skewed clocks, instantEps, ${ROUNDS} rounds; the linker does no better than chance (z <= ${Z_BOUND})`, async () => {
    const result = await audit(collectors, "default", undefined);
    console.info(`linkage, default ids: ${summary(result)}`);
    expect(result.z, summary(result)).toBeLessThanOrEqual(Z_BOUND);
  });

  it(`the same linker on time-ordered (version 7) ids made with each device's skewed clock matches most reports (> 50%, z > 10): the test bites`, async () => {
    const result = await audit(collectors, "time-ordered", (offset, rng) =>
      createTimeOrderedReportId(rng, Date.now() + offset),
    );
    console.info(`linkage, time-ordered ids: ${summary(result)}`);
    expect(result.correct / result.trials, summary(result)).toBeGreaterThan(0.5);
    expect(result.z, summary(result)).toBeGreaterThan(10);
  });
});
