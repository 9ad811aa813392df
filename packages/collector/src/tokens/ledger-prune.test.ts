import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { withTempDir } from "../../test/support.js";
import type { RoundLookup, WindowState } from "./issuer-rounds.js";
import { DirectoryQuotaLedger, QuotaLedger, type QuotaStore } from "./ledger.js";
import { ledgerPruneLine, pruneLedger, scheduleLedgerPrune } from "./ledger-prune.js";
import { ledgerPruneEvery } from "./routes.js";

const refused = { statusCode: 403, reason: "quota-exhausted" };

/** Windows in every state a prune meets: states by id; `unknown` throws (collector unreachable). */
function lookup(states: Map<string, WindowState | "unknown">): RoundLookup {
  const never = () => Promise.reject(new Error("not used"));
  return {
    round: never,
    campaign: never,
    windowState: async (id) => {
      const state = states.get(id) ?? "gone";
      if (state === "unknown") throw new Error("the collector cannot be reached");
      return state;
    },
  };
}

/** Five windows, each with identity "x"'s whole budget (1) taken: open, closed, gone, campaign, unknown. */
async function fiveWindows(ledger: QuotaStore) {
  const ids = { open: randomUUID(), closed: randomUUID(), gone: randomUUID(), campaign: randomUUID() };
  const unknown = randomUUID();
  const states = new Map<string, WindowState | "unknown">([
    [ids.open, "open"],
    [ids.closed, "closed"],
    [ids.campaign, "open"], // a campaign: open for its life
    [unknown, "unknown"],
  ]);
  for (const id of [...Object.values(ids), unknown]) await ledger.take(id, "x", 1, 1);
  return { ...ids, unknown, states };
}

async function expectPrunedOnlyExpired(
  ledger: QuotaStore,
  rounds: (states: Map<string, WindowState | "unknown">) => RoundLookup = lookup,
) {
  const w = await fiveWindows(ledger);
  const result = await pruneLedger(ledger, rounds(w.states));
  expect([...result.pruned].sort()).toEqual([w.closed, w.gone].sort());
  expect(result).toMatchObject({ kept: 2, unknown: 1 });
  expect((await ledger.windows()).sort()).toEqual([w.open, w.campaign, w.unknown].sort());
  // The kept windows keep their counts: no fresh budget in an open round or a campaign.
  for (const id of [w.open, w.campaign, w.unknown])
    await expect(ledger.take(id, "x", 1, 1)).rejects.toMatchObject(refused);
  expect(ledgerPruneLine(result)).toMatch(
    /pruned 2 window\(s\) of closed or removed rounds \(.*\); kept 2; 1 could not be looked up/,
  );
  expect(ledgerPruneLine({ pruned: [], kept: 3, unknown: 0 })).toBeUndefined();
}

describe("pruning the issuer's quota ledger", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("in memory and on disk: drops closed and removed rounds' windows, keeps open rounds, campaigns and unknowns", async () => {
    await expectPrunedOnlyExpired(new QuotaLedger());
    await withTempDir((dir) => expectPrunedOnlyExpired(new DirectoryQuotaLedger(dir)));
  });

  it("caught: a broken prune that drops every window (a device's second budget in an open round)", async () => {
    const forgetAll = () => lookup(new Map()); // every window reads as gone
    await expect(expectPrunedOnlyExpired(new QuotaLedger(), forgetAll)).rejects.toThrow();
    // ... and one that takes a campaign (its definition reads as a closed round) for expired.
    const campaignsClosed = (states: Map<string, WindowState | "unknown">) =>
      lookup(new Map([...states].map(([id, s]) => [id, s === "open" ? "closed" : s])));
    await expect(expectPrunedOnlyExpired(new QuotaLedger(), campaignsClosed)).rejects.toThrow();
  });

  it("scheduled (fake clock): nothing before the interval, then every interval; stop ends it", async () => {
    vi.useFakeTimers();
    const ledger = new QuotaLedger();
    const states = new Map<string, WindowState>();
    const [a, b] = [randomUUID(), randomUUID()];
    states.set(a, "open").set(b, "open");
    await ledger.take(a, "x", 1, 1);
    await ledger.take(b, "x", 1, 1);
    const runs: string[][] = [];
    const failures: unknown[] = [];
    const stop = scheduleLedgerPrune({
      ledger,
      rounds: lookup(states),
      everyMs: 60_000,
      done: (result) => runs.push([...result.pruned]),
      failed: (error) => failures.push(error),
    });
    states.set(a, "closed");
    await vi.advanceTimersByTimeAsync(59_999);
    expect(runs).toEqual([]);
    expect(await ledger.windows()).toContain(a);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toEqual([[a]]);
    expect(await ledger.windows()).toEqual([b]);
    // The next interval: b is open still (kept), then closed (pruned at the one after).
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toEqual([[a], []]);
    states.set(b, "closed");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(runs).toEqual([[a], [], [b]]);
    await stop();
    await ledger.take(b, "x", 1, 1);
    states.set(b, "closed");
    await vi.advanceTimersByTimeAsync(600_000);
    expect(runs).toHaveLength(3);
    expect(await ledger.windows()).toEqual([b]);
    expect(failures).toEqual([]);
  });

  it("scheduled: a failing ledger is reported and the next prune still runs", async () => {
    vi.useFakeTimers();
    let fail = true;
    const ledger: QuotaStore = {
      take: async () => undefined,
      forget: async () => undefined,
      windows: async () => {
        if (fail) throw new Error("disk gone");
        return [];
      },
    };
    const runs: number[] = [];
    const failures: string[] = [];
    const stop = scheduleLedgerPrune({
      ledger,
      rounds: lookup(new Map()),
      everyMs: 1000,
      done: (result) => runs.push(result.kept),
      failed: (error) => failures.push((error as Error).message),
    });
    await vi.advanceTimersByTimeAsync(1000);
    fail = false;
    await vi.advanceTimersByTimeAsync(1000);
    await stop();
    expect(failures).toEqual(["disk gone"]);
    expect(runs).toEqual([0]);
  });

  it("the interval option: default 10 minutes, false off, anything else not > 0 refused", () => {
    expect(ledgerPruneEvery({})).toBe(600_000);
    expect(ledgerPruneEvery({ ledgerPruneEveryMs: false })).toBeUndefined();
    expect(ledgerPruneEvery({ ledgerPruneEveryMs: 5000 })).toBe(5000);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => ledgerPruneEvery({ ledgerPruneEveryMs: bad })).toThrow(/ledgerPruneEveryMs/);
  });
});
