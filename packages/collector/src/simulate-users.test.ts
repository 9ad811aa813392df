import { createServer } from "node:http";
import { planCalm } from "@calm-ldp/calm-core";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { mixedRecords } from "../test/support.js";
import { InvalidParameterError } from "./errors.js";
import { simulateUsers } from "./simulate-users.js";

describe("simulateUsers", () => {
  const records = mixedRecords(500, 1);
  const plan = planCalm({ schema: records.schema, n: 500, eps: 1, k: 2 }, { m: 5 });
  const round = "0f8fad5b-d9cb-469f-a165-70867728950e";

  it("retries an unreachable collector for retryForMs, then gives up: bounded, nothing acknowledged", async () => {
    // A port that was just free: connections are refused at once.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const started = performance.now();
    const result = await simulateUsers({
      url: `http://127.0.0.1:${port}`,
      round,
      plan,
      records,
      batchSize: 100,
      concurrency: 2,
      retryForMs: 400,
      rng: seededRng(1),
    });
    expect(result).toMatchObject({ users: 500, acknowledged: 0, rejected: 0, unacknowledged: 500 });
    expect(result.retries).toBeGreaterThan(5);
    // Bounded: retryForMs is 400 ms; without the bound the loop would retry forever (generous for load).
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it("counts 4xx answers as rejected by reason, without retrying", async () => {
    const server = createServer((_request, response) => {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(JSON.stringify({ statusCode: 404, reason: "round-not-found", message: "no round" }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const refused: number[] = [];
      const result = await simulateUsers({
        url: `http://127.0.0.1:${port}`,
        round,
        plan,
        records,
        batchSize: 64,
        rng: seededRng(2),
        onRejected: (reports) => refused.push(reports.length),
      });
      expect(result).toMatchObject({ acknowledged: 0, rejected: 500, retries: 0, unacknowledged: 0 });
      expect(result.rejectedReasons).toEqual({ "round-not-found": 500 });
      expect(refused.reduce((s, x) => s + x, 0)).toBe(500);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses bad options", async () => {
    const options = {
      url: "http://127.0.0.1:9",
      round,
      plan: planCalm({ schema: uniformSchema(3), n: 10, eps: 1, k: 1 }, { m: 1 }),
      records,
    };
    await expect(simulateUsers({ ...options, url: [] })).rejects.toThrow(InvalidParameterError);
    await expect(simulateUsers({ ...options, concurrency: 0 })).rejects.toThrow(
      /concurrency must be an integer >= 1/,
    );
    await expect(simulateUsers({ ...options, batchSize: 1.5 })).rejects.toThrow(/batchSize/);
  });
});
