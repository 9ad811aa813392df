import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { browserGuard } from "../src/server/browser-guard.js";
import { webRoot } from "../src/server/paths.js";
import { sourceAliases } from "../src/server/source-aliases.js";

/**
 * What the headless-Chromium tests share: finding (or installing) Debian's
 * Chromium, launching it, bundling a test page with @calm-ldp/client from source,
 * and serving that page from its own loopback origin.
 */

/** Debian's Chromium (`.ci/setup-chromium` installs it). */
export const CHROMIUM = "/usr/bin/chromium";
const SETUP = join(webRoot(), "..", "..", ".ci", "setup-chromium");

/** Undefined when Chromium is there (installing it with .ci/setup-chromium if needed), else why not. */
export function chromiumMissing(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const started = performance.now();
  const run = spawnSync("bash", [SETUP], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 600_000,
  });
  const stderr = (run.stderr ?? "").trim();
  if (run.status !== 0) {
    const why = run.error ? `, ${run.error.message}` : "";
    return `${CHROMIUM} is absent and ${SETUP} failed (exit ${run.status}${why}): ${stderr}`;
  }
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is absent after running ${SETUP}`;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `\n.ci/setup-chromium installed Chromium for these tests (${seconds} s): ${run.stdout.trim()}\n`,
  );
  return undefined;
}

/**
 * For a browser test file: undefined when Chromium is there, else why not. In CI
 * (`CI` set) a missing Chromium throws, naming `what`; elsewhere the file is to be
 * skipped (`describe.skipIf`) and a loud warning names `file`.
 */
export function chromiumOrSkip(what: string, file: string): string | undefined {
  const missing = chromiumMissing();
  if (missing && process.env.CI) throw new Error(`${what}: Chromium is required in CI: ${missing}`);
  if (missing) console.warn(`\n!!! SKIPPING ${file}: ${missing} !!!\n`);
  return missing;
}

/** A collector admin request (`Authorization: Bearer <token>`, JSON body when given); its JSON answer. */
export async function adminRequest(
  token: string,
  url: string,
  method = "GET",
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

/**
 * Headless Chromium with a fresh profile in `userDataDir`; the flags keep it off
 * the network (this machine refuses outside connections) and out of the sandbox
 * (tests run as root).
 */
export function launchChromium(
  userDataDir: string,
  options: { viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    ...options,
  });
}

/**
 * Bundle entry files for the browser with Vite (ES modules, every @calm-ldp package
 * from source, any Node built-in an error via `browserGuard`), in memory; returns
 * the output chunks and assets. Entry names become `<name>.js`.
 */
export async function bundleForBrowser(entries: Record<string, string>, options: { minify?: boolean } = {}) {
  const output = await build({
    configFile: false,
    logLevel: "silent",
    resolve: { alias: sourceAliases() },
    plugins: [browserGuard()],
    build: {
      write: false,
      minify: options.minify ?? false,
      target: "es2022",
      lib: { entry: entries, formats: ["es"] },
      rollupOptions: { output: { entryFileNames: "[name].js" } },
    },
  });
  const outputs = Array.isArray(output) ? output : [output];
  return outputs.flatMap((o) => ("output" in o ? o.output : []));
}

/** Collect a page's uncaught errors ("page error: ...") and console errors ("console error: ...") into `into`. */
export function collectPageErrors(page: Page, into: string[]): void {
  page.on("pageerror", (error) => into.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") into.push(`console error: ${message.text()}`);
  });
}

/** `pageDir/page.ts` with @calm-ldp/client (from source) in one browser ES module; no Node built-in allowed. */
export async function bundlePage(pageDir: string): Promise<string> {
  const chunks = await bundleForBrowser({ page: join(pageDir, "page.ts") }, { minify: true });
  const chunk = chunks.find((c) => c.type === "chunk" && c.fileName === "page.js");
  if (chunk?.type !== "chunk") throw new Error("bundlePage: no page.js chunk");
  return chunk.code;
}

/** A static origin (loopback, its own port) serving `pageDir/index.html` at `/` and `script` at `/page.js`. */
export function serveTestPage(pageDir: string, script: string): Promise<{ server: Server; origin: string }> {
  const html = readFileSync(join(pageDir, "index.html"), "utf8");
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    if (path === "/") response.writeHead(200, { "content-type": "text/html" }).end(html);
    else if (path === "/page.js") response.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else if (path === "/favicon.ico") response.writeHead(204).end();
    else response.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}
