import { utimesSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakePage } from "../src/server/fake-page.js";
import { pageNeedsBuild } from "../src/server/page-build.js";
import { servePage } from "../src/server/serve-page.js";
import { resolveStaticPath, type StaticServer, startStaticServer } from "../src/server/static-server.js";

const open: StaticServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

describe("servePage", () => {
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
