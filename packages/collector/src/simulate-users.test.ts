import { createServer } from "node:http";
import { planCalm } from "@calm-ldp/calm-core";
import { CollectorResponseError } from "@calm-ldp/client";
import { CannotRunError } from "@calm-ldp/errors";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createRoundFor, freePort, mixedRecords, TOKEN, withTempDir } from "../test/support.js";
import { InvalidParameterError } from "./errors.js";
import { fetchRoundPlan, simulateUsers } from "./simulate-users.js";
import { startCollector } from "./start-collector.js";
import { openDuckDbStorage } from "./storage/duckdb/index.js";

/** A port nobody listens on (below the ephemeral range, see `freePort`): connections to it are refused at once. */
const closedPort = freePort;

/** A loopback server answering every request 404 `round-not-found`: its URL, the requests it had, `close()`. */
async function roundNotFoundServer() {
  let requests = 0;
  const server = createServer((_request, response) => {
    requests++;
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ statusCode: 404, reason: "round-not-found", message: "no round" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe("simulateUsers", () => {
  const records = mixedRecords(500, 1);
  const plan = planCalm({ schema: records.schema, n: 500, eps: 1, k: 2 }, { m: 5 });
  const round = "0f8fad5b-d9cb-469f-a165-70867728950e";

  it("retries an unreachable collector for retryForMs, then gives up: bounded, nothing acknowledged", async () => {
    const started = performance.now();
    const result = await simulateUsers({
      url: `http://127.0.0.1:${await closedPort()}`,
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
    const server = await roundNotFoundServer();
    try {
      const refused: number[] = [];
      const result = await simulateUsers({
        url: server.url,
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
      await server.close();
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

  it("fetchRoundPlan retries while the collector is down, and the plan arrives once it is up", async () => {
    await withTempDir(async (dir) => {
      // Make a round on a first collector, stop it, then restart on the same file and port later.
      const file = `${dir}/plan-retry.duckdb`;
      // On a port below the ephemeral range: no outgoing connection takes it while it is down.
      const first = await startCollector({
        storage: await openDuckDbStorage(file),
        adminToken: TOKEN,
        port: await freePort(),
      });
      const { round: id, plan: created } = await createRoundFor(first.url, records, 5000);
      await first.close();
      const fetching = fetchRoundPlan(first.url, id, { retryForMs: 30_000 });
      await new Promise((resolve) => setTimeout(resolve, 700));
      const second = await startCollector({
        storage: await openDuckDbStorage(file),
        adminToken: TOKEN,
        port: first.port,
      });
      try {
        const fetched = await fetching;
        expect(fetched.retries).toBeGreaterThan(2);
        expect(fetched.plan).toEqual(created);
        // ...and the users' reports follow on the same collector.
        const result = await simulateUsers({
          url: second.url,
          round: id,
          plan: fetched.plan,
          records,
          rng: seededRng(5),
        });
        expect(result).toMatchObject({ users: 500, acknowledged: 500, unacknowledged: 0 });
      } finally {
        await second.close();
      }
    });
  });

  it("fetchRoundPlan gives up after retryForMs with a clear error, and does not retry a 4xx", async () => {
    const port = await closedPort();
    const started = performance.now();
    const failure = await fetchRoundPlan(`http://127.0.0.1:${port}`, round, { retryForMs: 400 }).catch(
      (e) => e,
    );
    expect(failure).toBeInstanceOf(CannotRunError);
    const message = new RegExp(
      `cannot fetch the plan of round ${round} from http://127.0.0.1:${port}: gave up after \\d+ attempts over (\\d+\\.\\d) s; last error: fetch failed: ECONNREFUSED`,
    ).exec(failure.message);
    expect(message, failure.message).not.toBeNull();
    // At least retryForMs (400 ms) of retrying; how much more is the machine's load (one
    // late timer or slow refusal on a busy CI machine can pass 0.95 s), bounded below.
    expect(Number(message![1])).toBeGreaterThanOrEqual(0.4);
    expect(performance.now() - started).toBeLessThan(30_000);
    const server = await roundNotFoundServer();
    try {
      const refused = await fetchRoundPlan(server.url, round).catch((e) => e);
      expect(refused).toBeInstanceOf(CollectorResponseError);
      expect(refused.reason).toBe("round-not-found");
      expect(server.requests()).toBe(1);
    } finally {
      await server.close();
    }
  });
});
