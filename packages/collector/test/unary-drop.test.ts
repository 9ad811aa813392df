import { createTokenReport, fetchTokenKey, obtainTokens } from "@calm-ldp/client/tokens";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { testAttester } from "../src/index.js";
import { call, createRound, duckdbCollectors } from "./support.js";

describe("protected mode drops unary reports with an implausible number of ones", () => {
  const collectors = duckdbCollectors();

  it("acknowledges, does not store, and counts in round status a crafted all-ones OUE report", async () => {
    const { collector } = await collectors.start("unary-drop.duckdb", {
      tokens: { attester: testAttester(2) },
    });
    // Two attributes of 4 values, k = 2, OUE: one view of 16 cells (drop rule at 1%: 0 ones, or 10 and more).
    const { round, plan } = await createRound(collector.url, {
      schema: {
        attributes: [
          { name: "a", cardinality: 4 },
          { name: "b", cardinality: 4 },
        ],
      },
      n: 10_000,
      eps: 1,
      k: 2,
      oracle: "oue",
    });
    expect(plan.views.map((v) => [v.oracle, v.cells])).toEqual([["oue", 16]]);
    const key = await fetchTokenKey(collector.url, round);
    const [a, b] = await obtainTokens(collector.url, key, 2, { attestation: "device" });
    // Seed 3's honest report has between 1 and 9 ones (checked below), so it is plausible.
    const honest = await createTokenReport(plan, [1, 2], a!, { rng: seededRng(3) });
    const fake = await createTokenReport(plan, [1, 2], b!, { rng: seededRng(4) });
    const allOnes = { ...fake, bits: Buffer.from([0xff, 0xff]).toString("base64") };
    const ones = [...Buffer.from(honest.bits!, "base64")].reduce(
      (s, byte) => s + byte.toString(2).replaceAll("0", "").length,
      0,
    );
    expect(ones).toBeGreaterThan(0);
    expect(ones).toBeLessThan(10);
    const ack = await call(`${collector.url}/v1/rounds/${round}/reports`, "POST", {
      round,
      reports: [honest, allOnes],
    });
    expect(ack.body).toMatchObject({ acknowledged: 2, stored: 1, duplicates: 0, dropped: 1 });
    const status = (await call(`${collector.url}/v1/rounds/${round}/status`, "GET")).body;
    expect(status).toMatchObject({ accepted: 1, unaryDropped: { reports: 1, alpha: 0.01 } });
    const marginal = await call(`${collector.url}/v1/rounds/${round}/marginals?attrs=a,b`, "GET");
    expect(marginal.status).toBe(200);
  });
});
