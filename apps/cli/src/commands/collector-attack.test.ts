import { join } from "node:path";
import { type RunningCollector, startCollector, testAttester } from "@calm-ldp/collector";
import { openDuckDbStorage } from "@calm-ldp/collector/duckdb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectorCommandTests, TEST_ADMIN_TOKEN } from "./collector-test-support.js";

describe("calm-ldp collector simulate --attack", () => {
  const { dir, run } = collectorCommandTests("calm-attack-cli-");
  let open: RunningCollector | undefined;
  let guarded: RunningCollector | undefined;
  beforeAll(async () => {
    open = await startCollector({
      storage: await openDuckDbStorage(join(dir, "open.duckdb")),
      adminToken: TEST_ADMIN_TOKEN,
    });
    guarded = await startCollector({
      storage: await openDuckDbStorage(join(dir, "guarded.duckdb")),
      adminToken: TEST_ADMIN_TOKEN,
      tokens: { attester: testAttester() },
    });
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
  });
  const data = [
    "--data",
    "synthetic:iid?p=0.3",
    "--d",
    "4",
    "--n",
    "600",
    "--k",
    "2",
    "--eps",
    "1",
    "--theta",
    "0.02",
    "--perturb-seed",
    "4",
  ];
  const attack = ["--attack", "mga-grind-view", "--fraction", "0.05", "--target", "x0,x1=1,1"];

  it("prints attack {name, fraction, target, gain, floor, ratio, acceptedFake, refusedFake, flagged}", async () => {
    const result = await run(["simulate", "--url", open!.url, ...data, ...attack]);
    expect(result).toMatchObject({ acknowledged: 600, protected: false });
    const fakes = Math.round((0.05 * 600) / 0.95);
    expect(result.attack).toMatchObject({
      name: "mga-grind-view",
      fraction: 0.05,
      target: "0,1=1,1",
      acceptedFake: fakes,
      refusedFake: 0,
    });
    const a = result.attack as { gain: number; floor: number; ratio: number; flagged: unknown[] };
    expect(a.ratio).toBeCloseTo(a.gain / a.floor, 10);
    expect(a.floor).toBeGreaterThan(0);
    // The released pair marginals' SSE: C(4, 2) = 6 distributions, each SSE in (0, 2].
    const sse = (result.attack as { releasedSse: { k: number; marginals: number; sse: number } }).releasedSse;
    expect(sse).toMatchObject({ k: 2, marginals: 6 });
    expect(sse.sse).toBeGreaterThan(0);
    expect(sse.sse).toBeLessThanOrEqual(12);
  });

  it("on a protected collector the honest users spend tokens and fake clients are held to their quota", async () => {
    const result = await run(["simulate", "--url", guarded!.url, ...data, ...attack]);
    expect(result).toMatchObject({ acknowledged: 600, rejected: 0, protected: true });
    const fakes = Math.round((0.05 * 600) / 0.95);
    expect(result.attack).toMatchObject({ acceptedFake: fakes, refusedTokens: 8 * fakes });
  }, 60_000);

  it("refuses --attack without --target, and --target naming no attribute", async () => {
    await expect(run(["simulate", "--url", open!.url, ...data, "--attack", "mga"])).rejects.toThrow(
      /--attack needs --target/,
    );
    await expect(
      run(["simulate", "--url", open!.url, ...data, "--attack", "mga", "--target", "nope=1"]),
    ).rejects.toThrow(/no attribute "nope"/);
  });
});
