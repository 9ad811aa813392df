import { createConfig, lintFromString } from "@redocly/openapi-core";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDuckDbStorage } from "../src/duckdb.js";
import type { CollectorStorage } from "../src/index.js";
import { registeredRoutes } from "../src/openapi.js";
import { createCollector } from "../src/server.js";
import { TOKEN } from "./support.js";

type Document = {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, Record<string, { security?: unknown[]; operationId?: string }>>;
};

/** Redocly's `recommended` ruleset over `document`: its problems as "severity rule: message at pointer". */
async function lint(document: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ["recommended"] } as never);
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: "openapi.json",
    config,
  });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
}

describe("OpenAPI description at /openapi.json", () => {
  let storage: CollectorStorage;
  let app: FastifyInstance;
  let document: Document;
  beforeAll(async () => {
    storage = await openDuckDbStorage(":memory:");
    app = await createCollector({ storage, adminToken: TOKEN });
    const response = await app.inject({ method: "GET", url: "/openapi.json" });
    expect(response.statusCode).toBe(200);
    document = response.json() as Document;
  });
  afterAll(async () => {
    await app.close();
    await storage.close();
  });

  it("is OpenAPI 3.1 and lint-clean under Redocly's recommended rules (errors and warnings)", async () => {
    expect(document.openapi).toBe("3.1.0");
    expect(await lint(document)).toEqual([]);
  });

  it("the lint catches broken variants: a missing license, a duplicate operation id, an undefined security scheme", async () => {
    const broken = structuredClone(document);
    delete broken.info.license;
    broken.paths["/v1/rounds"]!.post!.operationId = broken.paths["/healthz"]!.get!.operationId;
    broken.paths["/v1/rounds/{id}/status"]!.get!.security = [{ apiKey: [] }];
    const problems = await lint(broken);
    expect(problems.some((p) => p.includes("info-license"))).toBe(true);
    expect(problems.some((p) => p.includes("operation-operationId-unique"))).toBe(true);
    expect(problems.some((p) => p.includes("security-defined"))).toBe(true);
  });

  it("describes every route the collector registered (but preflights), with the admin token exactly on admin routes", async () => {
    const routes = registeredRoutes(app).filter((r) => r.method !== "OPTIONS" && r.method !== "HEAD");
    expect(routes.length).toBeGreaterThanOrEqual(15);
    const described = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const expected = routes.map((r) => `${r.method} ${documentedPath(r.url)}`);
    expect(described.sort()).toEqual(expected.sort());
    // Admin routes (401 without the token) carry the bearer scheme; public ones none.
    for (const { method, url } of routes) {
      const path = documentedPath(url);
      const concrete = url.replace(/:id/g, "00000000-0000-4000-8000-000000000001");
      const answer = await app.inject({
        method: method as "GET",
        url: concrete,
        payload: method === "POST" ? {} : undefined,
      });
      const operation = document.paths[path]![method.toLowerCase()]!;
      expect([`${method} ${url}`, operation.security]).toEqual([
        `${method} ${url}`,
        answer.statusCode === 401 ? [{ adminToken: [] }] : [],
      ]);
    }
  });
});

/** A Fastify route as the document names it: `:id` -> `{id}`, a trailing wildcard `/*` -> `/{path}`. */
function documentedPath(url: string): string {
  return url.replace(/:([A-Za-z]+)/g, "{$1}").replace(/\/\*$/, "/{path}");
}
