import { InvalidRecordError } from "@calm-ldp/calm-core";
import {
  createReporter,
  memoryStorage,
  ReporterError,
  type ReporterStorage,
  sendReports,
  type WireReport,
} from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { call, createRound, duckdbCollectors } from "./support.js";

/**
 * The persistent reporter of @calm-ldp/client against a real collector (DuckDB,
 * loopback): bad input (unknown round, record outside the schema, closed round,
 * full or unreadable storage) gives typed errors, and across an outage, a lost
 * acknowledgement and a restart nothing is sent twice into the counts and
 * nothing is lost.
 */
describe("createReporter against a real collector: bad input, outages, nothing counted twice or lost", () => {
  const collectors = duckdbCollectors();
  const attributes = Array.from({ length: 5 }, (_, i) => ({ name: `a${i}`, labels: ["no", "yes"] }));

  it("unknown round, record outside the schema, collector down then back, lost acknowledgement, full storage", async () => {
    let { collector } = await collectors.start("collector.duckdb");
    const { round, plan } = await createRound(collector.url, {
      schema: { attributes },
      eps: 1,
      k: 2,
      n: 10_000,
    });
    let url = collector.url;
    const delivered: string[] = [];
    const send = async (r: string, reports: readonly WireReport[]) => {
      const ack = await sendReports(url, r, reports);
      delivered.push(...reports.map((p) => p.id));
      return ack;
    };
    const storage = memoryStorage();
    const options = { plan, storage, maxEps: 10, send, campaign: "e2e" };
    const reporter = await createReporter({ ...options, rng: seededRng(1) });
    const counted = async () => {
      const status = await call(`${url}/v1/rounds/${round}/status`, "GET");
      expect(status.status).toBe(200);
      return status.body.accepted as number;
    };

    // A round (campaign) the collector does not know: refused for good with its reason, not queued.
    const unknown = "00000000-0000-4000-8000-000000000000";
    const lost = await reporter.report([0, 1, 0, 1, 0], { round: unknown });
    expect(lost.flush).toMatchObject({ sent: 0, pending: 0 });
    expect(lost.flush.refused).toMatchObject([{ round: unknown, status: 404, reason: "round-not-found" }]);
    expect(lost.flush.refused[0]!.report.id).toBe(lost.report.id);

    // A record outside the schema: InvalidRecordError, nothing sent, nothing stored.
    await expect(reporter.report([0, 1, 2, 1, 0], { round })).rejects.toThrow(InvalidRecordError);
    await expect(reporter.report([0, 1], { round })).rejects.toThrow(InvalidRecordError);
    expect(await counted()).toBe(0);

    // A good report is counted once.
    const first = await reporter.report([0, 1, 0, 1, 0], { round });
    expect(first.flush).toMatchObject({ sent: 1, pending: 0, refused: [] });
    expect(await counted()).toBe(1);

    // A second round of the same campaign (the same parameters plan the same views).
    const second = await createRound(collector.url, { schema: { attributes }, eps: 1, k: 2, n: 10_000 });
    expect(second.plan).toEqual(plan);
    const counted2 = async () =>
      (await call(`${url}/v1/rounds/${second.round}/status`, "GET")).body.accepted as number;

    // The collector goes down: the report stays queued (persisted) with its id.
    const port = collector.port;
    await collector.close();
    const offline = await reporter.report([0, 1, 0, 1, 0], { round: second.round });
    expect(offline.flush).toMatchObject({ sent: 0, pending: 1 });
    // The device restarts while the collector is down: the queue survives in storage.
    const restarted = await createReporter({ ...options });
    expect(restarted.pending().map((p) => p.report.id)).toEqual([offline.report.id]);
    // The collector comes back on the same database and port; the restarted reporter delivers.
    ({ collector } = await collectors.start("collector.duckdb", { port }));
    url = collector.url;
    expect(await restarted.flush()).toMatchObject({ sent: 1, pending: 0, refused: [] });
    expect(await counted2()).toBe(1);
    expect(await restarted.flush()).toMatchObject({ sent: 0, pending: 0 });

    // A lost acknowledgement: the collector stores the batch but the answer never arrives.
    let loseAnswer = true;
    const lossy = async (r: string, reports: readonly WireReport[]) => {
      const ack = await send(r, reports);
      if (loseAnswer) throw new TypeError("fetch failed: connection reset");
      return ack;
    };
    const other = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 10,
      send: lossy,
      rng: seededRng(2),
    });
    const sent = await other.report([1, 1, 0, 0, 1], { round: second.round });
    expect(sent.flush).toMatchObject({ sent: 0, pending: 1 });
    expect(await counted2()).toBe(2);
    loseAnswer = false;
    // The retry carries the same id: acknowledged, not counted again.
    expect(await other.flush()).toMatchObject({ sent: 1, pending: 0 });
    expect(await counted2()).toBe(2);
    expect(delivered.filter((id) => id === sent.report.id)).toHaveLength(2);
    const again = await sendReports(url, second.round, [sent.report]);
    expect(again).toMatchObject({ acknowledged: 1, duplicates: 1 });
    expect(await counted2()).toBe(2);

    // A full storage refuses a report before anything is sent (state and counts unchanged).
    const full: ReporterStorage = {
      read: async () => undefined,
      write: async () => {
        throw new DOMException("quota", "QuotaExceededError");
      },
    };
    const crowded = await createReporter({ plan, storage: full, maxEps: 10, send, rng: seededRng(3) });
    const refused = await crowded.report([1, 0, 1, 0, 1], { round: second.round }).catch((e) => e);
    expect(refused).toBeInstanceOf(ReporterError);
    expect(refused.problem).toBe("storage");
    expect(crowded.ledger()).toMatchObject({ rounds: 0, memoized: 0 });
    expect(await counted()).toBe(1);
    expect(await counted2()).toBe(2);

    // A closed round: the collector refuses for good (409 round-closed); the report leaves the
    // queue with its reason, nothing is counted, and the round cannot be reported again.
    const closed = await call(`${url}/v1/rounds/${second.round}/close`, "POST", {});
    expect(closed.status).toBe(200);
    const late = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 10,
      send,
      rng: seededRng(4),
    });
    const refusedLate = await late.report([0, 0, 1, 1, 0], { round: second.round });
    expect(refusedLate.flush).toMatchObject({ sent: 0, pending: 0 });
    expect(refusedLate.flush.refused).toMatchObject([{ status: 409, reason: "round-closed" }]);
    expect(refusedLate.flush.refused[0]!.report.id).toBe(refusedLate.report.id);
    expect((await late.report([0, 0, 1, 1, 0], { round: second.round }).catch((e) => e)).problem).toBe(
      "round",
    );
    expect(await counted2()).toBe(2);

    // A storage that cannot be read: ReporterError "storage" at start, nothing reset or sent.
    const unreadable: ReporterStorage = {
      read: async () => {
        throw new DOMException("blocked", "InvalidStateError");
      },
      write: async () => undefined,
    };
    const blocked = await createReporter({ plan, storage: unreadable, maxEps: 10, send }).catch((e) => e);
    expect(blocked).toBeInstanceOf(ReporterError);
    expect(blocked.problem).toBe("storage");
  }, 60_000);
});
