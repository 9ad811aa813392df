import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseOptions, UsageError } from "../cli-kit.js";
import { pageNeedsBuild } from "../web/page-build.js";
import { servePage } from "../web/serve-page.js";
import { resolveStaticPath, type StaticServer, startStaticServer } from "../web/static-server.js";
import { serveCommand } from "./serve.js";

/** A stand-in for a built page, stamped newer than every source so `serve` does not rebuild it. */
function fakePage(): string {
  const dir = mkdtempSync(join(tmpdir(), "calm-serve-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>calm-ldp</title><p>page</p>\n");
  writeFileSync(join(dir, "assets", "main.js"), "console.log('main');\n");
  writeFileSync(
    join(dir, "build-info.json"),
    JSON.stringify({ builtAt: "now", milliseconds: 1, methods: ["calm"], vite: "7" }),
  );
  const future = new Date(Date.now() + 86_400_000);
  utimesSync(join(dir, "build-info.json"), future, future);
  return dir;
}

const open: StaticServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe("calm-ldp serve", () => {
  it("serves the page on 127.0.0.1 for --seconds, then closes and reports it", async () => {
    const dir = fakePage();
    const logs: string[] = [];
    let fetched: Promise<Response> | undefined;
    const context = {
      json: true,
      log: (line: string) => {
        logs.push(line);
        const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)?.[0];
        if (url) fetched = fetch(url);
      },
    };
    const { options } = parseOptions(serveCommand, ["--port", "0", "--dir", dir, "--seconds", "1"]);
    const result = (await serveCommand.run(options, context, [])) as Record<string, unknown>;
    expect(result).toMatchObject({ dir, built: false, methods: ["calm"], stoppedBy: "timeout" });
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await fetched!;
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await response.text()).toContain("<p>page</p>");
    // Closed afterwards: nothing listens on the port any more.
    await expect(fetch(result.url as string)).rejects.toThrow();
    expect(logs.some((line) => line.includes("Ctrl-C"))).toBe(true);
  });

  it("rejects bad options with a usage error naming them", () => {
    expect(() => parseOptions(serveCommand, ["--port", "70000"])).toThrow(UsageError);
    expect(() => parseOptions(serveCommand, ["--port", "70000"])).toThrow(/--port must be <= 65535/);
    expect(() => parseOptions(serveCommand, ["--seconds", "-1"])).toThrow(/--seconds must be >= 0/);
    expect(parseOptions(serveCommand, []).options).toMatchObject({ port: 5180, rebuild: false });
  });

  it("names the port when it is already in use", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(servePage({ port, dir: fakePage() })).rejects.toThrow(
        `port ${port} on 127.0.0.1 is in use`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("knows when the page must be built", () => {
    const dir = fakePage();
    expect(pageNeedsBuild(dir)).toBe(false);
    const old = new Date(0);
    utimesSync(join(dir, "build-info.json"), old, old);
    expect(pageNeedsBuild(dir)).toBe(true);
    expect(pageNeedsBuild(join(dir, "missing"))).toBe(true);
  });
});

describe("static file server", () => {
  it("serves files with their types, / as index.html, and nothing outside its folder", async () => {
    const dir = fakePage();
    writeFileSync(join(dir, "..", "calm-serve-secret.txt"), "secret\n");
    const seen: string[] = [];
    const server = await startStaticServer(dir, {
      onRequest: (method, path, status) => seen.push(`${method} ${path} ${status}`),
    });
    open.push(server);
    expect(server.host).toBe("127.0.0.1");
    const js = await fetch(`${server.url}assets/main.js`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await js.text()).toContain("main");
    expect((await fetch(`${server.url}nope.js`)).status).toBe(404);
    expect((await fetch(`${server.url}..%2fcalm-serve-secret.txt`)).status).toBe(404);
    expect((await fetch(`${server.url}%2e%2e/calm-serve-secret.txt`)).status).toBe(404);
    expect((await fetch(server.url, { method: "POST", body: "x" })).status).toBe(405);
    const head = await fetch(server.url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get("content-length"))).toBeGreaterThan(10);
    expect(seen).toContain("GET /nope.js 404");
  });

  it("resolves URL paths inside the root only", () => {
    const dir = fakePage();
    expect(resolveStaticPath(dir, "/")).toBe(join(dir, "index.html"));
    expect(resolveStaticPath(dir, "/assets/main.js?v=1")).toBe(join(dir, "assets", "main.js"));
    expect(resolveStaticPath(dir, "/../etc/passwd")).toBeUndefined();
    expect(resolveStaticPath(dir, "/%E0%A4%A")).toBeUndefined();
    expect(resolveStaticPath(dir, "/assets")).toBeUndefined();
  });
});
