import { estimateCalm } from "@calm-ldp/calm-core";
import { describe, expect, it } from "vitest";
import { call, duckdbCollectors, inProcessAnswers, mixedRound, startLoad } from "./support.js";

describe("GET /v1/rounds/:id/marginals?interval=", () => {
  const collectors = duckdbCollectors();

  it("returns calm-core's per-cell interval next to the unchanged answer; bad levels and calm-plus get 400", async () => {
    const { collector } = await collectors.start("interval.duckdb");
    const n = 20_000;
    const { records, round, plan } = await mixedRound(collector.url, n, 3);
    const base = `${collector.url}/v1/rounds/${round}/marginals`;

    // Before any report: no variance estimate, so no interval (400, not a zero-width one).
    const early = await call(`${base}?attrs=q0,q1&interval=0.95`, "GET");
    expect(early.status).toBe(400);
    expect(early.body).toMatchObject({ reason: "interval-unavailable" });
    expect(early.body.message).toMatch(/reports in every view/);

    const load = startLoad(collector.url, round, plan, records, { seed: 4, concurrency: 4, batchSize: 200 });
    await load.done;
    const { aggregator } = inProcessAnswers(plan, load.acknowledged.values(), []);
    const synopsis = estimateCalm(plan, aggregator);

    const covered = plan.views[0]!.attributes.map((a) => `q${a}`).join(",");
    const plain = await call(`${base}?attrs=${covered}`, "GET");
    expect(plain.status).toBe(200);
    expect(plain.body.lower).toBeUndefined();
    const answer = await call(`${base}?attrs=${covered}&interval=0.95`, "GET");
    expect(answer.status).toBe(200);
    const body = answer.body as Record<string, number[] | number | string>;
    // Existing fields unchanged.
    for (const key of ["cells", "n", "method", "expectedSse", "estimator", "attributes"])
      expect(body[key], key).toEqual(plain.body[key]);
    expect(body).toMatchObject({ level: 0.95, intervalMethod: "analytic", replicates: 0 });
    const core = synopsis.query(plan.views[0]!.attributes, { interval: 0.95 });
    expect(body.lower).toEqual(Array.from(core.lower));
    expect(body.upper).toEqual(Array.from(core.upper));
    expect(body.standardError).toEqual(Array.from(core.standardError));
    expect(body.center).toEqual(Array.from(core.center));
    const [lower, upper, se, center] = (["lower", "upper", "standardError", "center"] as const).map(
      (k) => body[k] as number[],
    );
    // True marginal of the simulated records: the 95% intervals cover most cells.
    const attrs = plan.views[0]!.attributes;
    const truth = new Float64Array(center!.length);
    for (let r = 0; r < n; r++) {
      let cell = 0;
      for (const a of attrs) cell = cell * plan.schema.attributes[a]!.labels.length + records.columns[a]![r]!;
      truth[cell]! += 1 / n;
    }
    let covers = 0;
    for (let i = 0; i < center!.length; i++) {
      expect(se![i]!).toBeGreaterThan(0);
      expect(Number.isFinite(se![i]!)).toBe(true);
      expect(lower![i]!).toBeLessThanOrEqual(Math.max(0, center![i]!));
      expect(upper![i]!).toBeGreaterThanOrEqual(Math.min(1, center![i]!));
      if (lower![i]! <= truth[i]! && truth[i]! <= upper![i]!) covers++;
    }
    expect(covers / center!.length).toBeGreaterThanOrEqual(0.75);

    // A query no view covers: calm-core's bound-based interval (no bootstrap on a request), SE null.
    const all = plan.schema.attributes.map((_, a) => a);
    expect(plan.views.some((v) => all.every((a) => v.attributes.includes(a)))).toBe(false);
    const wide = await call(`${base}?attrs=${all.map((a) => `q${a}`).join(",")}&interval=0.95`, "GET");
    expect(wide.status).toBe(200);
    expect(wide.body).toMatchObject({ method: "maxent", intervalMethod: "bounds", replicates: 0 });
    const coreBounds = synopsis.query(all, { interval: 0.95 });
    expect(wide.body.lower).toEqual(Array.from(coreBounds.lower));
    expect(wide.body.upper).toEqual(Array.from(coreBounds.upper));
    expect((wide.body.standardError as unknown[]).every((se) => se === null)).toBe(true);

    for (const bad of ["0", "1", "1.5", "-0.5", "abc", "0.95x", "", "NaN"]) {
      const refused = await call(`${base}?attrs=${covered}&interval=${encodeURIComponent(bad)}`, "GET");
      expect(refused.status, bad).toBe(400);
      expect(refused.body.message, bad).toMatch(/interval/);
    }
    const plus = await call(`${base}?attrs=${covered}&estimator=calm-plus&interval=0.9`, "GET");
    expect(plus.status).toBe(400);
    expect(plus.body).toMatchObject({ reason: "interval-unavailable" });
    expect(plus.body.message).toMatch(/"calm" estimator only/);
  });
});
