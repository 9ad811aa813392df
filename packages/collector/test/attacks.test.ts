import { createRecordStore, createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { parseTarget, protectedKey, runAttack, targetView, testAttester, tokenUsers } from "../src/index.js";
import { simulateUsers } from "../src/simulate-users.js";
import { createRound, duckdbCollectors, roundBody, TOKEN } from "./support.js";

/** n users of d binary attributes, each 1 with probability 0.3 (seeded). */
function binaryRecords(n: number, d: number, seed: number) {
  const rng = seededRng(seed);
  const schema = createSchema(Array.from({ length: d }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
  const columns = Array.from({ length: d }, () =>
    Uint8Array.from({ length: n }, () => (rng.nextUint32() / 2 ** 32 < 0.3 ? 1 : 0)),
  );
  return createRecordStore(schema, { columns });
}

describe("attack suite over HTTP (fake clients beside honest ones)", () => {
  const collectors = duckdbCollectors();
  const n = 800;
  const records = binaryRecords(n, 4, 5);

  async function attack(name: "mga-grind-view" | "sybil", protectedMode: boolean, file: string) {
    const { collector } = await collectors.start(
      file,
      protectedMode ? { tokens: { attester: testAttester() } } : {},
    );
    const { round, plan } = await createRound(collector.url, roundBody(records, 1, 2, 16384));
    const rng = seededRng(9);
    const key = await protectedKey(collector.url, round);
    expect(key !== undefined).toBe(protectedMode);
    const honest = await simulateUsers({
      url: collector.url,
      round,
      plan,
      records,
      rng,
      ...(key ? { reportFor: tokenUsers(collector.url, plan, key, rng, "honest") } : {}),
    });
    expect(honest.acknowledged).toBe(n);
    const target = parseTarget(plan, "a0,a1=1,1");
    const statusBefore = await (
      await fetch(`${collector.url}/v1/rounds/${round}/status`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json();
    const result = await runAttack({
      url: collector.url,
      round,
      plan,
      adminToken: TOKEN,
      attack: name,
      fraction: 0.05,
      target,
      honest: n,
      trueFrequency: 0.09,
      ...(key ? { key } : {}),
      rng,
      prefix: "fake",
    });
    const statusAfter = await (
      await fetch(`${collector.url}/v1/rounds/${round}/status`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).json();
    return {
      result,
      plan,
      target,
      before: statusBefore.perView as number[],
      after: statusAfter.perView as number[],
    };
  }

  it("unprotected: every grinding fake lands in the target's view", async () => {
    const { result, plan, target, before, after } = await attack(
      "mga-grind-view",
      false,
      "grind-open.duckdb",
    );
    const fakes = Math.round((0.05 * n) / 0.95);
    expect(result).toMatchObject({ fakeClients: fakes, acceptedFake: fakes, refusedFake: 0 });
    const tv = targetView(plan, target);
    expect(after[tv]! - before[tv]!).toBe(fakes);
    expect(result.gain).toBeGreaterThan(2 * result.floor);
    // The view-balance test of the round status flags the crowded view.
    expect(result.flagged).toContainEqual(expect.objectContaining({ kind: "view-balance", view: tv }));
  });

  it("protected: grinding costs tokens the quota refuses; a claimed view that is not the token's is refused", async () => {
    const { result, plan, target, before, after } = await attack(
      "mga-grind-view",
      true,
      "grind-protected.duckdb",
    );
    const fakes = Math.round((0.05 * n) / 0.95);
    // Each fake asked for 8 tokens (refused: quota 1), then got its one and spent it once.
    expect(result.refusedTokens).toBe(8 * fakes);
    expect(result.acceptedFake).toBe(fakes);
    expect(after.reduce((a, b) => a + b, 0) - before.reduce((a, b) => a + b, 0)).toBe(fakes);
    // The token fixes a uniform view: about (1 - 1/m) of the fakes were refused the target's view.
    // Binomial(fakes, 1 - 1/m): within 4 standard deviations.
    const m = plan.m;
    const mean = fakes * (1 - 1 / m);
    const sd = Math.sqrt(fakes * (1 / m) * (1 - 1 / m));
    expect(Math.abs(result.refusedFake - mean)).toBeLessThan(4 * sd);
    const tv = targetView(plan, target);
    expect(after[tv]! - before[tv]!).toBeLessThan(fakes / m + 4 * sd);
  });

  it("protected: a Sybil device gets exactly its quota of reports in (refusedFake = all beyond it)", async () => {
    const { result } = await attack("sybil", true, "sybil.duckdb");
    const fakes = Math.round((0.05 * n) / 0.95);
    expect(result).toMatchObject({ acceptedFake: fakes, refusedFake: 9 * fakes, refusedTokens: 10 * fakes });
  });

  it("OUE round: MGA fakes setting every matching bit raise the unary-ones flag in round status; honest users alone do not", async () => {
    const { collector } = await collectors.start("oue.duckdb", {});
    const people = binaryRecords(4000, 4, 6);
    const { round, plan } = await createRound(collector.url, {
      ...roundBody(people, 1, 2, 4000),
      oracle: "oue",
    });
    expect(plan.views.every((v) => v.oracle === "oue")).toBe(true);
    const rng = seededRng(3);
    await simulateUsers({ url: collector.url, round, plan, records: people, rng });
    const status = async () =>
      (
        await (
          await fetch(`${collector.url}/v1/rounds/${round}/status`, {
            headers: { authorization: `Bearer ${TOKEN}` },
          })
        ).json()
      ).flags as { kind: string; chiSquare: number; threshold: number }[];
    // Honest: flagged with probability 1% (seeded; see src/defences/unary-ones.test.ts for the rate).
    expect((await status()).filter((f) => f.kind === "unary-ones")).toEqual([]);
    // beta = 0.2: 1000 fakes, about 167 per view; views holding one target attribute
    // get 2 ones per fake against an honest mean of 1.31 (z about 5 each).
    const result = await runAttack({
      url: collector.url,
      round,
      plan,
      adminToken: TOKEN,
      attack: "mga",
      fraction: 0.2,
      target: parseTarget(plan, "a0,a1=1,1"),
      honest: 4000,
      trueFrequency: 0.09,
      rng,
      prefix: "fake",
    });
    expect(result.flagged).toContainEqual(expect.objectContaining({ kind: "unary-ones" }));
  });
});
