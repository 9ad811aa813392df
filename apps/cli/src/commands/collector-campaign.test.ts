import { join } from "node:path";
import { type RunningCollector, startCollector } from "@calm-ldp/collector";
import { openDuckDbStorage } from "@calm-ldp/collector/duckdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectorCommandTests, TEST_ADMIN_TOKEN } from "./collector-test-support.js";

const TOKEN = TEST_ADMIN_TOKEN;

describe("calm-ldp collector campaign / simulate --campaign / query --campaign", () => {
  const { dir, run } = collectorCommandTests("calm-campaign-cli-");
  let collector: RunningCollector | undefined;
  beforeAll(async () => {
    collector = await startCollector({
      storage: await openDuckDbStorage(join(dir, "campaign.duckdb")),
      adminToken: TOKEN,
    });
  });
  afterAll(async () => {
    await collector?.close();
  });

  it("creates a campaign, drives 5 rounds with 10% of users changing, and reads the time series of a marginal", async () => {
    const url = collector!.url;
    const data = ["--data", "synthetic:iid?p=0.3", "--d", "4", "--n", "2000"];
    const created = await run(["campaign", "--url", url, ...data, "--k", "2", "--eps", "1"]);
    expect(created).toMatchObject({ index: 0, eps: 1, roundEveryMs: null, instantEps: null });
    const campaign = created.campaign as string;
    const simulated = await run([
      "simulate",
      "--url",
      url,
      "--campaign",
      campaign,
      "--rounds",
      "5",
      "--change-rate",
      "0.1",
      ...data,
      "--perturb-seed",
      "3",
    ]);
    const rounds = simulated.rounds as {
      index: number;
      acknowledged: number;
      refused: number;
      changed: number;
    }[];
    expect(rounds.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    for (const [t, r] of rounds.entries()) {
      expect(r).toMatchObject({ acknowledged: 2000, refused: 0 });
      // Binomial(2000, 0.1): mean 200, sd 13.4; |z| <= 4.5.
      if (t === 0) expect(r.changed).toBe(0);
      else expect(Math.abs(r.changed - 200)).toBeLessThanOrEqual(4.5 * Math.sqrt(2000 * 0.1 * 0.9));
    }
    const ledger = simulated.ledger as { planEps: number; meanEps: number; maxEps: number; naiveEps: number };
    expect(ledger.naiveEps).toBe(5);
    expect(ledger.maxEps).toBeLessThanOrEqual(5);
    // Memoization: most users spend one plan eps; far below 5 per user.
    expect(ledger.meanEps).toBeLessThan(2);
    expect(ledger.meanEps).toBeGreaterThanOrEqual(1);

    const series = await run(["query", "--url", url, "--campaign", campaign, "--attrs", "0,1"]);
    const points = series.series as { index: number; n: number; cells: number[] }[];
    expect(points.map((p) => [p.index, p.n])).toEqual([0, 1, 2, 3, 4].map((i) => [i, 2000]));
    for (const p of points) expect(p.cells.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    // --interval 0.95: every round's point also carries its per-cell interval, cells unchanged.
    const withIntervals = await run([
      "query",
      "--url",
      url,
      "--campaign",
      campaign,
      "--attrs",
      "0,1",
      "--interval",
      "0.95",
    ]);
    const intervalPoints = withIntervals.series as { cells: number[]; lower: number[]; upper: number[] }[];
    expect(intervalPoints.map((p) => p.cells)).toEqual(points.map((p) => p.cells));
    for (const p of intervalPoints) {
      expect(p.lower).toHaveLength(p.cells.length);
      p.lower.forEach((lower, i) => {
        expect(lower).toBeLessThan(p.upper[i]!);
      });
    }
    const part = await run(["query", "--url", url, "--campaign", campaign, "--attrs", "0", "--from", "3"]);
    expect((part.series as { index: number }[]).map((p) => p.index)).toEqual([3, 4]);
  }, 120_000);

  it("refuses bad usage with a one-line error", async () => {
    const url = collector!.url;
    await expect(run(["simulate", "--url", url, "--rounds", "3"])).rejects.toThrow(
      /--rounds and --change-rate need --campaign/,
    );
    await expect(run(["simulate", "--url", url, "--campaign", "c", "--round", "r"])).rejects.toThrow(
      /--campaign or --round, not both/,
    );
    await expect(run(["query", "--url", url, "--round", "r", "--attrs", "0", "--from", "1"])).rejects.toThrow(
      /--from and --to need --campaign/,
    );
    await expect(run(["campaign", "--url", url, "--rounds", "2"])).rejects.toThrow(
      /does not apply to campaign/,
    );
    await expect(
      run(["campaign", "--url", url, "--data", "synthetic:iid?p=0.3", "--d", "4", "--round-every", "1x"]),
    ).rejects.toThrow(/invalid-campaign/);
    await expect(
      run([
        "simulate",
        "--url",
        url,
        "--campaign",
        "00000000-0000-4000-8000-000000000000",
        "--d",
        "4",
        "--n",
        "10",
      ]),
    ).rejects.toThrow(/404 campaign-not-found/);
  });
});
