import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidRecordError } from "@calm-ldp/calm-core";
import { CalmLdpError } from "@calm-ldp/errors";
import { fnv1a32 } from "@calm-ldp/frequency-oracles";
import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { ReporterStorage, WireReport } from "./api.js";
import { createReporter } from "./create-reporter.js";
import { CollectorResponseError, ReporterError, WireFormatError } from "./errors.js";
import { fileStorage } from "./node.js";
import { memoryStorage } from "./storage.js";
import { reportIdTime, wireKindPlans } from "./testing.js";

const plans = wireKindPlans();

/** A collector stand-in: records every delivered batch; `fail` makes it unreachable or refusing. */
function collector() {
  const batches: { round: string; reports: WireReport[] }[] = [];
  const state = { fail: undefined as undefined | "network" | "closed" };
  const send = async (round: string, reports: readonly WireReport[]) => {
    if (state.fail === "network") throw new TypeError("fetch failed");
    if (state.fail === "closed") throw new CollectorResponseError("closed", 409, "round-closed");
    batches.push({ round, reports: [...reports] });
    return { acknowledged: reports.length };
  };
  const ids = () => batches.flatMap((b) => b.reports.map((r) => r.id));
  return { batches, state, send, ids };
}

const strip = ({ id: _id, ...rest }: WireReport) => rest;

describe("createReporter", () => {
  for (const name of ["grr", "oue"] as const) {
    it(`${name}: keeps the group and re-sends the memoized response for an unchanged record, across restarts`, async () => {
      const plan = plans[name]!;
      const storage = memoryStorage();
      const server = collector();
      const options = { plan, storage, maxEps: 10, send: server.send, campaign: "c1" };
      const first = await createReporter({ ...options, rng: seededRng(1) });
      const record = [1, 0, 1, 1, 0, 1];
      const a = await first.report(record, { round: "r1" });
      expect(first.ledger()).toMatchObject({ eps: plan.eps, memoized: 1, rounds: 1, start: "new" });
      // A restart with another random source: the state decides, not the source.
      const second = await createReporter({ ...options, rng: seededRng(2) });
      expect(second.ledger()).toMatchObject({ start: "restored", view: a.report.view, eps: plan.eps });
      const b = await second.report(record, { round: "r2" });
      expect(strip(b.report)).toEqual(strip(a.report));
      expect(b.report.id).not.toBe(a.report.id);
      expect(second.ledger()).toMatchObject({ eps: plan.eps, memoized: 1, rounds: 2 });
      expect(server.batches.map((batch) => batch.round)).toEqual(["r1", "r2"]);
      expect(second.pending()).toEqual([]);
    });
  }

  it("ledger() equals plan eps x distinct (view, cell) values over a changing record", async () => {
    const plan = plans.ternary!;
    const rng = seededRng(3);
    const reporter = await createReporter({ plan, storage: memoryStorage(), maxEps: 1000, rng });
    const cells = new Set<string>();
    const view = () => reporter.ledger().view!;
    for (let round = 0; round < 40; round++) {
      // Change one attribute with probability 1/4 (a record that wanders).
      const record = [0, 1, 2, 0, 1].map((v, a) =>
        a === round % 5 && rng.nextUint32() < 2 ** 30 ? (v + 1) % 3 : v,
      );
      await reporter.report(record, { round: `r${round}` });
      const attributes = plan.views[view()]!.attributes;
      cells.add(attributes.map((a) => record[a]).join(","));
      expect(reporter.ledger().eps).toBeCloseTo(plan.eps * cells.size, 12);
      expect(reporter.ledger().memoized).toBe(cells.size);
    }
    expect(reporter.pending()).toHaveLength(40); // no send: everything stays queued
  });

  it("past maxEps throws ReporterError ('budget') and sends nothing", async () => {
    const plan = plans.grr!;
    const server = collector();
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 2 * plan.eps,
      send: server.send,
      rng: seededRng(4),
    });
    await reporter.report([0, 0, 0, 0, 0, 0], { round: "r1" });
    await reporter.report([1, 1, 1, 1, 1, 1], { round: "r2" }); // another cell of any view: second eps
    // A third distinct value of the view's cells is always beyond the budget.
    const attributes = plan.views[reporter.ledger().view!]!.attributes;
    const fresh = [0, 0, 0, 0, 0, 0];
    fresh[attributes[0]!] = 1; // cell (1, 0): neither (0, 0) nor (1, 1)
    const refused = await reporter.report(fresh, { round: "r4" }).catch((e) => e);
    expect(refused).toBeInstanceOf(ReporterError);
    expect(refused).toBeInstanceOf(CalmLdpError); // one error family across packages
    expect(refused.problem).toBe("budget");
    expect(reporter.ledger().eps).toBeCloseTo(2 * plan.eps, 12);
    expect(server.ids().length).toBe(reporter.ledger().rounds);
  });

  it("a corrupt or foreign state is detected and replaced by a fresh one", async () => {
    const plan = plans.grr!;
    const storage = memoryStorage();
    const reporter = await createReporter({ plan, storage, maxEps: 5, campaign: "c", rng: seededRng(5) });
    await reporter.report([1, 1, 0, 0, 1, 1], { round: "r1" });
    const stored = storage.entries.get("calm-ldp-reporter:c")!;
    // One flipped character in the JSON: the checksum no longer matches.
    storage.entries.set("calm-ldp-reporter:c", stored.replace('"rounds":["r1"]', '"rounds":["r2"]'));
    expect((await createReporter({ plan, storage, maxEps: 5, campaign: "c" })).ledger()).toMatchObject({
      start: "corrupt",
      eps: 0,
      memoized: 0,
    });
    storage.entries.set("calm-ldp-reporter:c", "calm-ldp-reporter/9 0 {}");
    expect((await createReporter({ plan, storage, maxEps: 5, campaign: "c" })).ledger().start).toBe(
      "corrupt",
    );
    // A sound state of another plan under the same key.
    storage.entries.set("calm-ldp-reporter:c", stored);
    expect(
      (await createReporter({ plan: plans.oue!, storage, maxEps: 5, campaign: "c" })).ledger().start,
    ).toBe("foreign");
    expect((await createReporter({ plan, storage, maxEps: 5, campaign: "c" })).ledger().start).toBe(
      "restored",
    );
  });

  it("round ids are pruned to the latest keepRoundIds (plus queued rounds): the state stays small, a recent round is still refused", async () => {
    const plan = plans.grr!;
    const record = [1, 0, 1, 1, 0, 1];
    const stateOf = (storage: ReturnType<typeof memoryStorage>) => {
      const text = storage.entries.get("calm-ldp-reporter:default")!;
      return { text, json: JSON.parse(text.slice(text.indexOf(" ", text.indexOf(" ") + 1) + 1)) };
    };
    const round = (t: number) => `round-${String(t).padStart(4, "0")}`;
    // Delivered reports: only the latest 32 ids stay (default), the ledger counts every round.
    const storage = memoryStorage();
    const server = collector();
    const reporter = await createReporter({ plan, storage, maxEps: 5, send: server.send, rng: seededRng(9) });
    const sizes: number[] = [];
    for (let t = 0; t < 400; t++) {
      await reporter.report(record, { round: round(t) });
      if (t === 31 || t === 99 || t === 399) sizes.push(stateOf(storage).text.length);
    }
    const { json } = stateOf(storage);
    expect(json.rounds).toEqual(Array.from({ length: 32 }, (_, i) => round(368 + i)));
    expect(json.reported).toBe(400);
    expect(reporter.ledger()).toMatchObject({ rounds: 400, eps: plan.eps, memoized: 1 });
    // 32, 100 and 400 rounds: the same size up to the digits of the round count.
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(2);
    const refused = await reporter.report(record, { round: round(399) }).catch((e) => e);
    expect(refused).toBeInstanceOf(ReporterError);
    expect(refused.problem).toBe("round");
    expect(server.ids()).toHaveLength(400);
    // Restored from storage: the same pruned ids, the same count.
    const again = await createReporter({ plan, storage, maxEps: 5, send: server.send });
    expect(again.ledger()).toMatchObject({ start: "restored", rounds: 400 });
    expect((await again.report(record, { round: round(380) }).catch((e) => e)).problem).toBe("round");

    // Offline with keepRoundIds 2: every queued report's round stays refused until delivered.
    const offline = memoryStorage();
    const down = collector();
    down.state.fail = "network";
    const queued = await createReporter({
      plan,
      storage: offline,
      maxEps: 5,
      send: down.send,
      keepRoundIds: 2,
    });
    for (let t = 0; t < 5; t++) await queued.report(record, { round: round(t) });
    expect(stateOf(offline).json.rounds).toEqual([0, 1, 2, 3, 4].map(round));
    expect((await queued.report(record, { round: round(0) }).catch((e) => e)).problem).toBe("round");
    down.state.fail = undefined;
    expect((await queued.flush()).sent).toBe(5);
    await queued.report(record, { round: round(5) });
    expect(stateOf(offline).json.rounds).toEqual([4, 5].map(round));
    expect(queued.ledger().rounds).toBe(6);
    await expect(createReporter({ plan, storage: offline, maxEps: 5, keepRoundIds: 0 })).rejects.toThrow(
      /keepRoundIds must be an integer >= 1/,
    );
  });

  it("report ids: random (version 4) by default, time-ordered (version 7, made now) or a given maker on request; other kinds refused", async () => {
    const plan = plans.grr!;
    const record = plan.schema.attributes.map(() => 0);
    const fixed = (rng: Rng) =>
      `00000000-0000-4000-8000-${(rng.nextUint32() >>> 0).toString(16).padStart(12, "0")}`;
    for (const [reportIds, version] of [
      [undefined, "4"],
      ["random", "4"],
      ["time-ordered", "7"],
      [fixed, "given"],
    ] as const) {
      const server = collector();
      const reporter = await createReporter({
        plan,
        storage: memoryStorage(),
        maxEps: 10,
        send: server.send,
        rng: seededRng(5),
        ...(reportIds === undefined ? {} : { reportIds }),
      });
      const before = Date.now();
      for (let t = 0; t < 3; t++) await reporter.report(record, { round: `r${t}` });
      const ids = server.ids();
      expect(ids).toHaveLength(3);
      for (const id of ids) {
        if (version === "given") expect(id.startsWith("00000000-0000-4000-8000-")).toBe(true);
        else expect(id[14]).toBe(version);
        if (version === "7") {
          const made = reportIdTime(id);
          expect(made).toBeGreaterThanOrEqual(before);
          expect(made).toBeLessThanOrEqual(Date.now());
        }
      }
    }
    await expect(
      createReporter({ plan, storage: memoryStorage(), maxEps: 5, reportIds: "v4" as "random" }),
    ).rejects.toThrow(/reportIds must be "random", "time-ordered" or a function \(got "v4"\)/);
    // A maker that returns no UUID: the report throws WireFormatError and nothing is queued.
    const bad = await createReporter({ plan, storage: memoryStorage(), maxEps: 5, reportIds: () => "nope" });
    await expect(bad.report(record, { round: "r0" })).rejects.toThrow(WireFormatError);
    expect(bad.pending()).toEqual([]);
  });

  it("a version-1 state (every round id kept) is migrated: same group, memo and queue, ids pruned, count kept", async () => {
    const plan = plans.oue!;
    const record = [0, 1, 1, 0, 1, 0];
    // Make a current state, then write it back as version 1 would have: 50 round ids, no count.
    const storage = memoryStorage();
    const down = collector();
    down.state.fail = "network";
    const first = await createReporter({
      plan,
      storage,
      maxEps: 5,
      campaign: "m",
      send: down.send,
      rng: seededRng(4),
    });
    const { report } = await first.report(record, { round: "queued-round" });
    const text = storage.entries.get("calm-ldp-reporter:m")!;
    const current = JSON.parse(text.slice(text.indexOf(" ", text.indexOf(" ") + 1) + 1));
    const { reported: _reported, ...v1 } = {
      ...current,
      rounds: ["queued-round", ...Array.from({ length: 49 }, (_, i) => `old-${i}`)],
    };
    const json = JSON.stringify(v1);
    const v1Text = `calm-ldp-reporter/1 ${fnv1a32(json).toString(16)} ${json}`;
    storage.entries.set("calm-ldp-reporter:m", v1Text);
    const server = collector();
    const migrated = await createReporter({ plan, storage, maxEps: 5, campaign: "m", send: server.send });
    expect(migrated.ledger()).toMatchObject({
      start: "restored",
      rounds: 50,
      memoized: 1,
      view: report.view,
    });
    expect(migrated.pending().map((p) => p.report.id)).toEqual([report.id]);
    // The queued round (oldest id) is kept with the latest 32; a kept old id is still refused.
    expect((await migrated.report(record, { round: "old-48" }).catch((e) => e)).problem).toBe("round");
    const next = await migrated.report(record, { round: "new-round" });
    expect(next.flush.sent).toBe(2); // the migrated queue went out with the same id
    expect(server.ids()).toContain(report.id);
    expect(strip(next.report)).toEqual(strip(report));
    const after = storage.entries.get("calm-ldp-reporter:m")!;
    expect(after.startsWith("calm-ldp-reporter/2 ")).toBe(true);
    const state = JSON.parse(after.slice(after.indexOf(" ", after.indexOf(" ") + 1) + 1));
    expect(state.reported).toBe(51);
    expect(state.rounds).toHaveLength(32);
    expect(state.rounds.at(-1)).toBe("new-round");
    expect(migrated.ledger()).toMatchObject({ rounds: 51, eps: plan.eps });
    // A version-1 text whose checksum does not match is corrupt, as before.
    storage.entries.set("calm-ldp-reporter:m", v1Text.replace('"old-3"', '"old-X"'));
    expect((await createReporter({ plan, storage, maxEps: 5, campaign: "m" })).ledger().start).toBe(
      "corrupt",
    );
  });

  it("offline: reports stay queued and the next start retries them with the same ids", async () => {
    const plan = plans.oue!;
    const storage = memoryStorage();
    const server = collector();
    server.state.fail = "network";
    const offline = await createReporter({ plan, storage, maxEps: 5, send: server.send, rng: seededRng(6) });
    const r1 = await offline.report([0, 1, 0, 1, 0, 1], { round: "r1" });
    const r2 = await offline.report([0, 1, 0, 1, 0, 1], { round: "r2" });
    expect(r2.flush).toMatchObject({ sent: 0, pending: 2 });
    server.state.fail = undefined;
    const online = await createReporter({ plan, storage, maxEps: 5, send: server.send });
    expect(online.pending().map((p) => p.report.id)).toEqual([r1.report.id, r2.report.id]);
    expect(await online.flush()).toMatchObject({ sent: 2, pending: 0 });
    expect(server.ids()).toEqual([r1.report.id, r2.report.id]);
    // Nothing left to send twice.
    expect(await online.flush()).toMatchObject({ sent: 0, pending: 0 });
    expect((await createReporter({ plan, storage, maxEps: 5, send: server.send })).pending()).toEqual([]);
  });

  it("a refused report (closed round) leaves the queue with its reason; a round is reported once", async () => {
    const plan = plans.grr!;
    const server = collector();
    server.state.fail = "closed";
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 5,
      send: server.send,
      rng: seededRng(7),
    });
    const { flush } = await reporter.report([0, 0, 1, 1, 0, 0], { round: "old" });
    expect(flush.refused).toHaveLength(1);
    expect(flush.refused[0]).toMatchObject({ round: "old", reason: "round-closed", status: 409 });
    expect(reporter.pending()).toEqual([]);
    const again = await reporter.report([0, 0, 1, 1, 0, 0], { round: "old" }).catch((e) => e);
    expect(again).toBeInstanceOf(ReporterError);
    expect(again.problem).toBe("round");
  });

  it("bad input: a record outside the schema, bad options, full or unavailable storage: typed errors, nothing sent or lost", async () => {
    const plan = plans.grr!;
    const server = collector();
    const storage = memoryStorage();
    const reporter = await createReporter({ plan, storage, maxEps: 5, send: server.send, rng: seededRng(8) });
    await expect(reporter.report([0, 0, 2, 0, 0, 0], { round: "r1" })).rejects.toThrow(InvalidRecordError);
    await expect(reporter.report([0, 0], { round: "r1" })).rejects.toThrow(/6 values/);
    await expect(reporter.report([0, 0, 0, 0, 0, 0], {} as { round: string })).rejects.toThrow(ReporterError);
    await expect(createReporter({ plan, storage, maxEps: -1 })).rejects.toThrow(/maxEps/);
    expect(server.ids()).toEqual([]);
    expect(reporter.ledger()).toMatchObject({ eps: 0, rounds: 0 });

    await reporter.report([0, 0, 0, 0, 0, 0], { round: "r1" });
    const full: ReporterStorage = {
      read: storage.read,
      write: async () => {
        throw new DOMException("quota", "QuotaExceededError");
      },
    };
    const crowded = await createReporter({ plan, storage: full, maxEps: 5, send: server.send });
    const error = await crowded.report([1, 1, 1, 1, 1, 1], { round: "r2" }).catch((e) => e);
    expect(error).toBeInstanceOf(ReporterError);
    expect(error.problem).toBe("storage");
    expect(crowded.ledger()).toMatchObject({ rounds: 1, memoized: 1 }); // unchanged
    expect(server.ids()).toHaveLength(1);
    const unavailable: ReporterStorage = {
      read: async () => {
        throw new Error("SecurityError");
      },
      write: storage.write,
    };
    await expect(createReporter({ plan, storage: unavailable, maxEps: 5 })).rejects.toMatchObject({
      problem: "storage",
    });
  });

  it("concurrent reports and flushes are serialized: every id is delivered exactly once", async () => {
    const plan = plans.oue!;
    const delivered: string[] = [];
    let calls = 0;
    const send = async (_round: string, reports: readonly WireReport[]) => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      // The first delivery fails after a delay (a timeout): those ids must come back once, not twice.
      if (calls === 1) throw new TypeError("fetch failed");
      delivered.push(...reports.map((r) => r.id));
      return { acknowledged: reports.length };
    };
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 5,
      send,
      rng: seededRng(11),
    });
    const record = [1, 0, 0, 1, 1, 0];
    const results = await Promise.all([
      reporter.report(record, { round: "a" }),
      reporter.flush(),
      reporter.report(record, { round: "b" }),
      reporter.flush(),
      reporter.report(record, { round: "c" }),
    ]);
    await reporter.flush();
    const ids = results.flatMap((r) => ("report" in r ? [r.report.id] : []));
    expect(ids).toHaveLength(3);
    expect([...delivered].sort()).toEqual([...ids].sort());
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(reporter.pending()).toEqual([]);
  });

  it("with instantEps: fresh randomization per report, the memo and ledger unchanged", async () => {
    const plan = plans.oue!;
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 5,
      instantEps: 2,
      rng: seededRng(9),
    });
    const seen = new Set<string>();
    for (let round = 0; round < 20; round++) {
      const { report } = await reporter.report([1, 1, 1, 1, 1, 1], { round: `r${round}` });
      seen.add(report.bits!);
    }
    expect(seen.size).toBeGreaterThan(1);
    const ledger = reporter.ledger();
    expect(ledger).toMatchObject({ eps: plan.eps, memoized: 1, rounds: 20 });
    expect(ledger.reportEps).toBeLessThan(plan.eps);
  });
});

describe("fileStorage (@calm-ldp/client/node)", () => {
  it("keeps the state in a file across reporters and reads a damaged file as corrupt", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "calm-reporter-")), "state", "reporter.json");
    const plan = plans.grr!;
    const first = await createReporter({ plan, storage: fileStorage(path), maxEps: 5, rng: seededRng(10) });
    const { report } = await first.report([0, 1, 1, 0, 0, 1], { round: "r1" });
    const second = await createReporter({ plan, storage: fileStorage(path), maxEps: 5 });
    expect(second.ledger()).toMatchObject({ start: "restored", view: report.view, eps: plan.eps });
    writeFileSync(path, "{ half a file");
    expect((await createReporter({ plan, storage: fileStorage(path), maxEps: 5 })).ledger().start).toBe(
      "corrupt",
    );
  });
});
