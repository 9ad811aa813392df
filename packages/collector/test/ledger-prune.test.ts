import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fetchCampaignTokenKey, fetchTokenKey, obtainTokens } from "@calm-ldp/client/tokens";
import { describe, expect, it } from "vitest";
import { testAttester } from "../src/index.js";
import { remoteRoundLookup } from "../src/tokens/issuer-rounds.js";
import { parseMetrics, sample } from "./metrics-text.js";
import {
  call,
  createBinaryCampaign,
  duckdbCollectors,
  freePort,
  mixedRound,
  sleep,
  suiteIssuers,
} from "./support.js";

/**
 * The scheduled prune of the issuer's quota ledger (src/tokens/ledger-prune.ts)
 * in both processes: the issuer apart (which asks the collector's public API what
 * each window is) and the issuer inside the collector; real timers at 100 ms.
 * The fake-clock tests of the schedule are in src/tokens/ledger-prune.test.ts.
 */
describe("scheduled quota-ledger prune", () => {
  const collectors = duckdbCollectors();
  const issuers = suiteIssuers();
  const windows = async (dir: string) => (await readdir(join(dir, "quota")).catch(() => [])).sort();

  /** Poll `check` every 20 ms for up to 10 s. */
  async function eventually(check: () => Promise<boolean> | boolean): Promise<void> {
    for (let waited = 0; waited < 10_000; waited += 20) {
      if (await check()) return;
      await sleep(20);
    }
    throw new Error("eventually: still false after 10 s");
  }

  it("the issuer apart reads windows from the collector: open and campaign kept, closed and unknown gone", async () => {
    const { collector } = await collectors.start("lookup.duckdb");
    const rounds = remoteRoundLookup(collector.url);
    const { round } = await mixedRound(collector.url, 1000, 1);
    const { campaign, round: campaignRound } = await createBinaryCampaign(collector.url);
    expect(await rounds.windowState(round)).toBe("open");
    expect(await rounds.windowState(campaign)).toBe("open");
    await call(`${collector.url}/v1/rounds/${round}/close`, "POST", {});
    await call(`${collector.url}/v1/rounds/${campaignRound}/close`, "POST", {});
    expect(await rounds.windowState(round)).toBe("closed");
    expect(await rounds.windowState(campaignRound)).toBe("closed");
    // A campaign without an open round is still a campaign: its campaign tokens' counts stay.
    expect(await rounds.windowState(campaign)).toBe("open");
    expect(await rounds.windowState(randomUUID())).toBe("gone");
    const down = remoteRoundLookup(`http://127.0.0.1:${await freePort()}`);
    await expect(down.windowState(round)).rejects.toMatchObject({ reason: "collector-unavailable" });
  });

  it("the issuer apart prunes a closed round's window on its schedule and logs it; the campaign's stays", async () => {
    const { collector } = await collectors.start("apart-prune.duckdb");
    const keyDir = join(collectors.dir, "apart-prune-keys");
    const lines: string[] = [];
    const issuer = await issuers.start(collector.url, {
      keyDir,
      ledgerPruneEveryMs: 100,
      log: (line) => lines.push(line),
    });
    const { round } = await mixedRound(collector.url, 1000, 2);
    const { campaign } = await createBinaryCampaign(collector.url);
    await obtainTokens(issuer.url, await fetchTokenKey(issuer.url, round), 1, { attestation: "d1" });
    await obtainTokens(issuer.url, await fetchCampaignTokenKey(issuer.url, campaign), 1, {
      attestation: "d1",
    });
    expect(await windows(keyDir)).toEqual([round, campaign].sort());
    await sleep(300); // a few prunes: both open, nothing pruned, nothing logged
    expect(lines).toEqual([]);
    expect(await windows(keyDir)).toEqual([round, campaign].sort());
    await call(`${collector.url}/v1/rounds/${round}/close`, "POST", {});
    await eventually(async () => (await windows(keyDir)).length === 1);
    expect(await windows(keyDir)).toEqual([campaign]);
    await eventually(() => lines.length > 0);
    expect(lines[0]).toBe(
      `token quota ledger: pruned 1 window(s) of closed or removed rounds (${round}); kept 1`,
    );
    // The campaign's count survived: d1 gets no second campaign token (a second view).
    await expect(
      obtainTokens(issuer.url, await fetchCampaignTokenKey(issuer.url, campaign), 1, { attestation: "d1" }),
    ).rejects.toMatchObject({ status: 403, reason: "quota-exhausted" });
  });

  it("the issuer inside the collector prunes on its schedule and counts it in /metrics", async () => {
    const keyDir = join(collectors.dir, "inside-prune-keys");
    const { collector } = await collectors.start("inside-prune.duckdb", {
      tokens: { attester: testAttester(), keyDir, ledgerPruneEveryMs: 100 },
    });
    const { round } = await mixedRound(collector.url, 1000, 3);
    await obtainTokens(collector.url, await fetchTokenKey(collector.url, round), 1, { attestation: "d1" });
    expect(await windows(keyDir)).toEqual([round]);
    const scrape = async () => parseMetrics(await (await fetch(`${collector.url}/metrics`)).text());
    await sleep(300);
    expect((await scrape()).get(sample("calm_collector_token_ledger_windows_pruned_total"))).toBe(0);
    await call(`${collector.url}/v1/rounds/${round}/close`, "POST", {});
    await eventually(async () => (await windows(keyDir)).length === 0);
    const after = await scrape();
    expect(after.get(sample("calm_collector_token_ledger_windows_pruned_total"))).toBe(1);
    expect(after.get(sample("calm_collector_token_ledger_prunes_total"))).toBeGreaterThan(3);
  });
});
