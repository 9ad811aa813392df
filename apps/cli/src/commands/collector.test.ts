import { join } from "node:path";
import { startCollector } from "@calm-ldp/collector";
import { openDuckDbStorage } from "@calm-ldp/collector/duckdb";
import { describe, expect, it } from "vitest";
import { parseOptions, UsageError } from "../cli-kit.js";
import { ADMIN_TOKEN_VARIABLE, collectorCommand } from "./collector.js";
import { collectorCommandTests, freePort, spawnServe, TEST_ADMIN_TOKEN } from "./collector-test-support.js";

const TOKEN = TEST_ADMIN_TOKEN;

describe("calm-ldp collector", () => {
  const { dir, logs, run } = collectorCommandTests("calm-collector-cli-");
  /** `collector simulate` of n users of 6 independent attributes into an existing round. */
  const simulateInto = (url: string, round: string, n: number) =>
    run([
      "simulate",
      "--url",
      url,
      "--round",
      round,
      "--n",
      String(n),
      "--d",
      "6",
      "--data",
      "synthetic:iid?p=0.3",
    ]);

  it("refuses bad usage with a one-line error naming the problem", async () => {
    await expect(run([])).rejects.toThrow(
      /first argument must be one of serve, simulate, status, query, close/,
    );
    await expect(run(["serveit"])).rejects.toThrow(UsageError);
    expect(() => parseOptions(collectorCommand, ["status", "extra"])).toThrow(/unexpected argument "extra"/);
    await expect(run(["status", "--round", "x"])).rejects.toThrow(/collector status: --url is required/);
    await expect(run(["query", "--url", "http://127.0.0.1:9", "--round", "r"])).rejects.toThrow(
      /--attrs is required/,
    );
    await expect(
      run(["status", "--url", "http://127.0.0.1:9", "--round", "r", "--attrs", "a"]),
    ).rejects.toThrow(/--attrs does not apply to status/);
    await expect(
      run(["serve", "--db", join(dir, "x.duckdb"), "--postgres", "postgres://h/db"]),
    ).rejects.toThrow(/--db or --postgres, not both/);
    await expect(
      run(["serve", "--db", join(dir, "x.duckdb"), "--clickhouse", "http://127.0.0.1:9/db"]),
    ).rejects.toThrow(/--clickhouse alone/);
    await expect(
      run([
        "serve",
        "--db",
        join(dir, "x.duckdb"),
        "--allow-origin",
        "https://ok.example,https://bad.example/app",
      ]),
    ).rejects.toThrow(/collector serve: --allow-origin: "https:\/\/bad\.example\/app" is not an origin/);
    await expect(run(["serve", "--db", join(dir, "x.duckdb"), "--id-retention", "1 week"])).rejects.toThrow(
      /--id-retention must be a duration like 90s, 15m, 1h, 7d or 0 \(got "1 week"\)/,
    );
    await expect(run(["serve", "--db", join(dir, "x.duckdb"), "--rate-limit", "lots"])).rejects.toThrow(
      /collector serve: --rate-limit must be <requests-per-second>\[,<burst>\]/,
    );
    await expect(run(["close", "--url", "http://127.0.0.1:9"])).rejects.toThrow(
      /collector close: --round is required/,
    );
    await expect(run(["serve", "--db", join(dir, "x.duckdb"), "--allow-origin", "*"])).rejects.toThrow(
      /wildcards and null origins are never allowed/,
    );
    await expect(
      run(["status", "--url", "http://127.0.0.1:9", "--round", "r", "--allow-origin", "https://a.example"]),
    ).rejects.toThrow(/--allow-origin does not apply to status/);
    delete process.env[ADMIN_TOKEN_VARIABLE];
    await expect(run(["status", "--url", "http://127.0.0.1:9", "--round", "r"])).rejects.toThrow(
      /set CALM_LDP_ADMIN_TOKEN/,
    );
    process.env[ADMIN_TOKEN_VARIABLE] = TOKEN;
  });

  it("simulate fails with an error when the collector cannot be reached for the plan", async () => {
    const round = "0f8fad5b-d9cb-469f-a165-70867728950e";
    // Port 9 (discard) is closed on loopback: every attempt is refused at once.
    await expect(
      run(["simulate", "--url", "http://127.0.0.1:9", "--round", round, "--n", "10", "--retry-for", "0.2"]),
    ).rejects.toThrow(/fetch failed|ECONNREFUSED/);
  });

  it("simulate --round retries the plan fetch while the collector is down, then reports once it is up", async () => {
    const file = join(dir, "plan-retry.duckdb");
    // On a port below the ephemeral range: no outgoing connection takes it while it is down.
    const port = await freePort();
    const first = await startCollector({ storage: await openDuckDbStorage(file), adminToken: TOKEN, port });
    const created = await fetch(`${first.url}/v1/rounds`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({
        schema: { attributes: [2, 2, 2, 2].map((c, i) => ({ name: `x${i}`, cardinality: c })) },
        eps: 1,
        k: 2,
        n: 1000,
      }),
    }).then((r) => r.json() as Promise<{ round: string }>);
    await first.close();
    logs.length = 0;
    const simulating = run([
      "simulate",
      "--url",
      first.url,
      "--round",
      created.round,
      "--data",
      "synthetic:iid?p=0.3",
      "--d",
      "4",
      "--n",
      "300",
      "--retry-for",
      "30",
    ]);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const second = await startCollector({
      storage: await openDuckDbStorage(file),
      adminToken: TOKEN,
      port: first.port,
    });
    try {
      expect(await simulating).toMatchObject({ round: created.round, acknowledged: 300, unacknowledged: 0 });
      expect(logs.join("\n")).toMatch(/fetched the plan of round .* after \d+ retries/);
    } finally {
      await second.close();
    }
  });

  it("serve (a real CLI process) + simulate + status + query: counts and a marginal over HTTP", async () => {
    const serving = spawnServe([
      "--db",
      join(dir, "cli.duckdb"),
      "--port",
      "0",
      "--allow-origin",
      "http://localhost:5173",
      "--id-retention",
      "2h",
      "--rate-limit",
      "5000,10000",
      "--trust-proxy",
      "127.0.0.1",
    ]);
    const { child, output, exited } = serving;
    try {
      const url = (await serving.started(/collector listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
      // --allow-origin: a page on that origin may post reports (preflight answered), another may not.
      const preflight = (origin: string) =>
        fetch(`${url}/v1/rounds/0f8fad5b-d9cb-469f-a165-70867728950e/reports`, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST" },
        });
      const allowed = await preflight("http://localhost:5173");
      expect(allowed.status).toBe(204);
      expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
      const other = await preflight("http://localhost:5174");
      expect(other.status).toBe(403);
      expect(other.headers.get("access-control-allow-origin")).toBeNull();

      const simulated = await run([
        "simulate",
        "--url",
        url,
        "--data",
        "synthetic:iid?p=0.3",
        "--n",
        "5000",
        "--d",
        "6",
        "--k",
        "2",
        "--eps",
        "1",
        "--concurrency",
        "4",
        "--perturb-seed",
        "5",
      ]);
      expect(simulated).toMatchObject({ acknowledged: 5000, rejected: 0, users: 5000, unacknowledged: 0 });
      expect(Object.keys(simulated).slice(0, 5)).toEqual([
        "round",
        "acknowledged",
        "rejected",
        "seconds",
        "reportsPerSecond",
      ]);
      const round = simulated.round as string;

      const status = await run(["status", "--url", url, "--round", round]);
      expect(Object.keys(status).slice(0, 4)).toEqual(["round", "accepted", "rejected", "perView"]);
      expect(status).toMatchObject({ round, accepted: 5000, rejected: {} });
      expect((status.perView as number[]).reduce((s, x) => s + x, 0)).toBe(5000);

      const answer = await run(["query", "--url", url, "--round", round, "--attrs", "0,1"]);
      expect(Object.keys(answer).slice(0, 4)).toEqual(["attrs", "cells", "n", "expectedSse"]);
      expect(answer.n).toBe(5000);
      const cells = answer.cells as number[];
      expect(cells).toHaveLength(4);
      expect(cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
      // iid Bernoulli(0.3) bits: P(1,1) = 0.09. Tolerance: 6 x the collector's own
      // expected error sqrt(expectedSse) (an upper bound on one cell's standard deviation).
      expect(answer.expectedSse).toBeGreaterThan(0);
      expect(Math.abs(cells[3]! - 0.09)).toBeLessThan(6 * Math.sqrt(answer.expectedSse as number));

      // --interval 0.95: the same answer plus a per-cell 95% interval (analytic: a view covers {0, 1}).
      const withInterval = await run([
        "query",
        "--url",
        url,
        "--round",
        round,
        "--attrs",
        "0,1",
        "--interval",
        "0.95",
      ]);
      expect(withInterval.cells).toEqual(cells);
      expect(withInterval).toMatchObject({ n: 5000, level: 0.95, intervalMethod: "analytic" });
      const [lower, upper, se] = (["lower", "upper", "standardError"] as const).map(
        (k) => withInterval[k] as number[],
      );
      expect(lower).toHaveLength(4);
      for (let i = 0; i < 4; i++) {
        expect(se![i]!).toBeGreaterThan(0);
        expect(lower![i]!).toBeLessThan(upper![i]!);
      }
      // The true P(1,1) = 0.09 lies within 3 x the 95% half-width (which is 1.96 standard errors).
      expect(Math.abs(0.09 - (lower![3]! + upper![3]!) / 2)).toBeLessThan(3 * se![3]! * 1.96);
      await expect(
        run(["query", "--url", url, "--round", round, "--attrs", "0,1", "--interval", "1.5"]),
      ).rejects.toThrow(/interval/);

      // A second simulate into the same round; a wrong token is refused.
      const more = await simulateInto(url, round, 1000);
      expect(more).toMatchObject({ round, acknowledged: 1000 });
      process.env[ADMIN_TOKEN_VARIABLE] = `${TOKEN}-wrong`;
      await expect(run(["status", "--url", url, "--round", round])).rejects.toThrow(/HTTP 403 wrong-token/);
      process.env[ADMIN_TOKEN_VARIABLE] = TOKEN;
      expect((await run(["status", "--url", url, "--round", round])).accepted).toBe(6000);

      // close: the round keeps its counts and refuses further reports (409 round-closed).
      const closed = await run(["close", "--url", url, "--round", round]);
      expect(closed).toMatchObject({ round, idsDroppedAt: null });
      expect(Date.parse(closed.idsDropAfter as string) - Date.parse(closed.closedAt as string)).toBe(
        2 * 3_600_000,
      );
      const late = await simulateInto(url, round, 20);
      expect(late).toMatchObject({ acknowledged: 0, rejected: 20, rejectedReasons: { "round-closed": 20 } });
      expect(await run(["status", "--url", url, "--round", round])).toMatchObject({
        accepted: 6000,
        closedAt: closed.closedAt,
        idsHeld: 6000,
        rejected: { "round-closed": 20 },
      });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    const document = JSON.parse(output.stdout.trim()) as Record<string, unknown>;
    expect(document).toMatchObject({
      storage: "duckdb",
      stoppedBy: "SIGTERM",
      allowOrigins: ["http://localhost:5173"],
      idRetentionMs: 7_200_000,
      rateLimit: { perSecond: 5000, burst: 10000 },
    });
  });
});
