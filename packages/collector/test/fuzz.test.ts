import { connect } from "node:net";
import { join } from "node:path";
import type { CalmPlan } from "@calm-ldp/calm-core";
import { encodeBase64, type WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import fc from "fast-check";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type CollectorStorage, createCollector } from "../src/index.js";
import { mixedRecords, reportsOf, roundBody, suiteTempDir, TOKEN } from "./support.js";

const MAX_BATCH = 20;
const BODY_LIMIT = 32 * 1024;
const OTHER_ROUND = "3f1c2b9e-8d7a-4c6b-9e5f-0a1b2c3d4e5f";

/** A request and what the collector must answer; `counted` is what it adds to the round's rejections. */
interface Case {
  readonly label: string;
  readonly url: string;
  readonly payload: string;
  readonly contentType: string;
  readonly status: number;
  readonly reasons: readonly string[];
  readonly counted: number;
}

describe("bad input: every malformed request gets the right 4xx, nothing is stored, the server keeps serving", () => {
  const dir = suiteTempDir();
  let storage: CollectorStorage;
  let app: FastifyInstance;
  let round = "";
  let plan: CalmPlan;
  let valid: WireReport[] = [];
  const rejected: Record<string, number> = {};

  beforeAll(async () => {
    storage = await openDuckDbStorage(join(dir, "fuzz.duckdb"));
    app = await createCollector({ storage, adminToken: TOKEN, maxBatch: MAX_BATCH, bodyLimit: BODY_LIMIT });
    const records = mixedRecords(200, 3);
    const created = await app.inject({
      method: "POST",
      url: "/v1/rounds",
      headers: { authorization: `Bearer ${TOKEN}` },
      payload: roundBody(records, 1, 2, 10_000),
    });
    expect(created.statusCode).toBe(201);
    ({ round, plan } = created.json() as { round: string; plan: CalmPlan });
    const rng = seededRng(4);
    valid = reportsOf(plan, records, 0, 200, rng);
    // The fuzzing below needs reports of both kinds and an OUE view with padding bits.
    expect(valid.some((r) => r.value !== undefined) && valid.some((r) => r.bits !== undefined)).toBe(true);
    expect(plan.views.some((v) => v.oracle === "oue" && v.cells % 8 !== 0)).toBe(true);
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  const reportsUrl = () => `/v1/rounds/${round}/reports`;
  const json = (body: unknown) => JSON.stringify(body);

  /** Arbitrary JSON values for wrong types. */
  const anyJson = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.integer(),
      fc.double(),
      fc.string({ maxLength: 8 }),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 3 }),
    ),
  })).value;

  /** Every kind of bad request, with its expected answer. */
  const cases: fc.Arbitrary<Case> = fc
    .record({
      start: fc.nat(150),
      size: fc.integer({ min: 1, max: 10 }),
      target: fc.nat(9),
      junk: anyJson,
      bump: fc.integer({ min: 0, max: 1000 }),
      bytes: fc.uint8Array({ maxLength: 8 }),
      kind: fc.integer({ min: 0, max: 18 }),
      text: fc.string({ maxLength: 30 }),
    })
    .map(({ start, size, target, junk, bump, bytes, kind, text }): Case => {
      const reports = valid.slice(start, start + size).map((r) => ({ ...r }) as Record<string, unknown>);
      const j = target % reports.length;
      const victim = reports[j]!;
      const body: Record<string, unknown> = { round, reports };
      const batch = (status: number, reason: string, label: string): Case => ({
        label,
        url: reportsUrl(),
        payload: json(body),
        contentType: "application/json",
        status,
        reasons: [reason],
        counted: reports.length,
      });
      const grr = valid.find((r) => r.value !== undefined)!;
      const oue = valid.find((r) => r.bits !== undefined && plan.views[r.view]!.cells % 8 !== 0)!;
      switch (kind) {
        case 0:
          victim.view = plan.views.length + bump;
          return batch(400, "unknown-view", "view beyond the plan");
        case 1:
          victim.view = typeof junk === "number" && Number.isInteger(junk) && junk < 0 ? junk : [junk];
          return batch(400, "schema", "view of the wrong type");
        case 2:
          reports[j] = { ...grr, value: plan.views[grr.view]!.cells + bump };
          return batch(400, "value-out-of-range", "GRR value out of range");
        case 3:
          reports[j] = { ...grr, value: -1 - bump };
          return batch(400, "schema", "negative value");
        case 4:
          reports[j] = { ...grr, bits: "AAAA" };
          return batch(400, "wrong-report-kind", "bits on a GRR view");
        case 5: {
          const { bits: _bits, ...rest } = oue;
          reports[j] = { ...rest, value: 0 };
          return batch(400, "wrong-report-kind", "value on an OUE view");
        }
        case 6: {
          const length = (plan.views[oue.view]!.cells + 7) >>> 3;
          const wrong = bytes.length === length ? new Uint8Array(length + 1) : bytes;
          reports[j] = { ...oue, bits: encodeBase64(wrong) };
          return batch(400, "invalid-bits", "bits of the wrong length (another view's size)");
        }
        case 7: {
          const cells = plan.views[oue.view]!.cells;
          const padded = new Uint8Array((cells + 7) >>> 3);
          padded[padded.length - 1] = 0x80; // bit beyond cells
          reports[j] = { ...oue, bits: encodeBase64(padded) };
          return batch(400, "invalid-bits", "padding bits set");
        }
        case 8:
          delete victim[bump % 2 === 0 ? "id" : "view"];
          return batch(400, "schema", "missing field");
        case 9:
          victim[`x${text}`] = junk;
          return batch(400, "schema", "extra field");
        case 10:
          victim.id = /^[0-9a-f-]{36}$/.test(text) ? `${text}X` : text;
          return batch(400, "schema", "malformed report id");
        case 11:
          body.round = OTHER_ROUND;
          return batch(400, "round-mismatch", "a batch for another round");
        case 12:
          return {
            label: "body of the wrong type",
            url: reportsUrl(),
            payload: json(
              Array.isArray(junk) || junk === null || typeof junk !== "object" ? junk : { ...junk, round },
            ),
            contentType: "application/json",
            status: 400,
            reasons: ["schema"],
            counted: 1,
          };
        case 13:
          body.reports = [];
          return { ...batch(400, "schema", "empty batch"), counted: 1 };
        case 14: {
          body.reports = Array.from(
            { length: MAX_BATCH + 1 + (bump % 5) },
            (_, i) => valid[i % valid.length],
          );
          return {
            ...batch(413, "batch-too-large", "too many reports"),
            counted: MAX_BATCH + 1 + (bump % 5),
          };
        }
        case 15:
          body.padding = "x".repeat(BODY_LIMIT);
          return { ...batch(413, "body-too-large", "body over the limit"), counted: 1 };
        case 16:
          return {
            ...batch(404, "round-not-found", "a round that does not exist"),
            url: `/v1/rounds/${OTHER_ROUND}/reports`,
            counted: 0,
          };
        case 17: {
          const full = json(body);
          return {
            ...batch(400, "malformed-json", "truncated JSON"),
            payload: full.slice(0, Math.max(1, (bump * full.length) / 1001)),
            counted: 1,
          };
        }
        default:
          return {
            ...batch(415, "unsupported-media-type", "not JSON"),
            contentType: "text/plain",
            counted: 1,
          };
      }
    });

  const checkErrorBody = (payload: string) => {
    const body = JSON.parse(payload) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["message", "reason", "statusCode"]);
    expect(payload).not.toMatch(/\n\s+at |\/work\/|node_modules|stack/);
    // Another round's id never shows up in an answer about this one.
    expect(payload).not.toContain(OTHER_ROUND);
    return body;
  };

  it("property: malformed, mistyped, out-of-range, misrouted and oversized batches are refused with the right status and reason", async () => {
    await fc.assert(
      fc.asyncProperty(cases, async (c) => {
        const response = await app.inject({
          method: "POST",
          url: c.url,
          headers: { "content-type": c.contentType },
          payload: c.payload,
        });
        expect(response.statusCode, c.label).toBe(c.status);
        const body = checkErrorBody(response.payload);
        expect(c.reasons, `${c.label}: ${response.payload}`).toContain(body.reason);
        if (c.counted > 0)
          rejected[body.reason as string] = (rejected[body.reason as string] ?? 0) + c.counted;
      }),
      { numRuns: 400, seed: 20_260_521 },
    );
  });

  it("property: admin endpoints refuse a missing (401) or wrong (403) bearer token", async () => {
    const endpoints = [
      { method: "POST" as const, url: "/v1/rounds" },
      { method: "GET" as const, url: `/v1/rounds/${round}/status` },
      { method: "GET" as const, url: `/v1/rounds/${round}/marginals?attrs=q0,q1` },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...endpoints),
        fc.oneof(
          fc.constant(undefined),
          fc.string({
            unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
            maxLength: 40,
          }),
        ),
        fc.constantFrom("Bearer ", "bearer ", "Basic ", "", "Token "),
        async (endpoint, token, scheme) => {
          const authorization = token === undefined ? undefined : `${scheme}${token}`;
          const response = await app.inject({
            method: endpoint.method,
            url: endpoint.url,
            headers: authorization === undefined ? {} : { authorization },
            ...(endpoint.method === "POST" ? { payload: {} } : {}),
          });
          const wellFormed = token !== undefined && token !== "" && /^bearer $/i.test(scheme);
          expect(response.statusCode).toBe(wellFormed ? 403 : 401);
          const body = checkErrorBody(response.payload);
          expect(body.reason).toBe(wellFormed ? "wrong-token" : "missing-token");
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });

  it("after all that nothing was stored, every refusal was counted by reason, and valid batches still go through", async () => {
    const admin = { authorization: `Bearer ${TOKEN}` };
    const status = (
      await app.inject({ method: "GET", url: `/v1/rounds/${round}/status`, headers: admin })
    ).json();
    expect(status.accepted).toBe(0);
    expect(status.perView.every((x: number) => x === 0)).toBe(true);
    expect(status.rejected).toEqual(rejected);
    const counts = await storage.supportCounts((await storage.findRound(round))!);
    expect(counts.support.every((view) => view.every((c) => c === 0))).toBe(true);

    const ok = await app.inject({
      method: "POST",
      url: reportsUrl(),
      payload: { round, reports: [...valid.slice(0, 10), valid[0]] },
    });
    expect(ok.statusCode).toBe(200);
    // The repeated id is acknowledged but stored once.
    expect(ok.json()).toEqual({ acknowledged: 11, stored: 10, duplicates: 1 });
    const again = await app.inject({
      method: "POST",
      url: reportsUrl(),
      payload: { round, reports: valid.slice(5, 15) },
    });
    expect(again.json()).toEqual({ acknowledged: 10, stored: 5, duplicates: 5 });
    const after = (
      await app.inject({ method: "GET", url: `/v1/rounds/${round}/status`, headers: admin })
    ).json();
    expect(after).toMatchObject({ accepted: 15, duplicates: 6 });
    expect((await app.inject({ method: "GET", url: "/healthz" })).json()).toMatchObject({
      status: "ok",
      storage: "duckdb",
    });
  });

  it("answers unknown routes, bad queries and bad round requests with JSON errors", async () => {
    const admin = { authorization: `Bearer ${TOKEN}` };
    const expectError = async (request: InjectOptions, status: number, reason: string) => {
      const response = await app.inject(request);
      expect(response.statusCode, JSON.stringify(request)).toBe(status);
      expect(checkErrorBody(response.payload).reason).toBe(reason);
    };
    await expectError({ method: "GET", url: "/nope" }, 404, "not-found");
    await expectError({ method: "GET", url: `/v1/rounds/${OTHER_ROUND}/plan` }, 404, "round-not-found");
    await expectError({ method: "GET", url: "/v1/rounds/not-a-uuid/plan" }, 400, "schema");
    await expectError(
      { method: "GET", url: `/v1/rounds/${round}/marginals?attrs=q0,zz`, headers: admin },
      400,
      "invalid-query",
    );
    await expectError(
      { method: "GET", url: `/v1/rounds/${round}/marginals?attrs=q0,q0`, headers: admin },
      400,
      "invalid-query",
    );
    await expectError({ method: "GET", url: `/v1/rounds/${round}/marginals`, headers: admin }, 400, "schema");
    await expectError(
      { method: "GET", url: `/v1/rounds/${round}/marginals?attrs=q0&extra=1`, headers: admin },
      400,
      "schema",
    );
    await expectError(
      { method: "GET", url: `/v1/rounds/${round}/marginals?attrs=q0&estimator=bogus`, headers: admin },
      400,
      "schema",
    );
    // A valid round body with one thing changed: [change, reason] (all 400).
    const bad = roundBody(mixedRecords(10, 1), 1, 2, 1000);
    for (const [change, reason] of [
      [{ k: 9 }, "invalid-round"],
      [{ eps: 0 }, "schema"],
      [{ n: 1.5 }, "schema"],
      [{ n: 3 }, "invalid-round"],
      [{ schema: { attributes: [{ name: "a", cardinality: 2, labels: ["x", "y"] }] } }, "schema"],
    ] as const)
      await expectError(
        { method: "POST", url: "/v1/rounds", headers: admin, payload: { ...bad, ...change } },
        400,
        reason,
      );
  });

  it("over real sockets: garbage HTTP and an oversized body are refused, and the server keeps serving", async () => {
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address() as { port: number };
    const base = `http://127.0.0.1:${address.port}`;
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(address.port, "127.0.0.1", () => socket.end(text));
        let answer = "";
        socket.on("data", (chunk) => {
          answer += chunk.toString();
        });
        socket.on("close", () => resolve(answer));
        socket.on("error", reject);
        socket.setTimeout(5000, () => socket.destroy(new Error("raw: no answer in 5 s")));
      });
    expect(await raw("GARBAGE\r\n\r\n")).toMatch(/^HTTP\/1\.1 400/);
    expect(await raw(`POST ${reportsUrl()} HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 400/,
    );
    const big = await fetch(`${base}${reportsUrl()}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ round, reports: [], padding: "y".repeat(4 * BODY_LIMIT) }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { reason: string }).reason).toBe("body-too-large");
    const health = await fetch(`${base}/healthz`);
    expect(await health.json()).toMatchObject({ status: "ok", storage: "duckdb" });
  });
});
