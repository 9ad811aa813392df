import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { ErrorBody } from "./api.js";

/** Where the console is served. */
export const CONSOLE_PATH = "/console/";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
};

/**
 * The console's only sources are this origin: its own scripts and styles (no
 * inline script, no third-party asset), data calls to this origin only
 * (`connect-src 'self'`), never framed (the close button cannot be clickjacked).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The console bundle shipped with this package: `dist/console` of the
 * `@calm-ldp/collector` package directory (found by walking up from this module,
 * so the same from `src/` and from the built `dist/`). O(depth).
 */
export function shippedConsoleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "@calm-ldp/collector")
      return join(dir, "dist", "console");
    const parent = dirname(dir);
    if (parent === dir) return join(dirname(fileURLToPath(import.meta.url)), "console");
    dir = parent;
  }
}

/** Every file under `dir` by its URL path below it (`index.html`, `assets/x.js`). O(files). */
function listFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && TYPES[extname(entry.name)])
        files.set(relative(dir, path).split(sep).join("/"), path);
    }
  };
  if (existsSync(join(dir, "index.html"))) walk(dir);
  return files;
}

/**
 * `GET /console/` and its assets: the operator console, a static page
 * (`src/console-page`, built by Vite into `dist/console` with the package) that
 * reads this collector's admin API with the token the operator types in. The page
 * itself is public (it holds no data); every data call needs the admin token, and
 * none is allowed cross-origin (no CORS on admin routes, `connect-src 'self'`).
 * Only the files present in `dir` at start are served (a fixed list: no path from
 * the URL reaches the file system); `/console` redirects to `/console/`. Without a
 * built bundle every console path is 404 `console-not-built`, saying how to build
 * it. Headers: CSP {@link CONSOLE_CSP}, `X-Frame-Options: DENY`, `nosniff`,
 * `Referrer-Policy: no-referrer`; `index.html` is never cached, the hashed assets
 * are immutable. O(size of a file) per request (files read at start).
 */
export function registerConsole(app: FastifyInstance, dir: string = shippedConsoleDir()): void {
  const files = new Map(
    [...listFiles(dir)].map(([name, path]) => [
      name,
      { body: readFileSync(path), type: TYPES[extname(path)]! },
    ]),
  );
  const send = (reply: FastifyReply, name: string) => {
    const file = files.get(name);
    if (!file) {
      const built = files.size > 0;
      const body: ErrorBody = {
        statusCode: 404,
        reason: built ? "not-found" : "console-not-built",
        message: built
          ? `the console has no file ${name}`
          : `the console bundle is missing from ${dir}: build it with \`pnpm --filter @calm-ldp/collector build\``,
      };
      return reply.code(404).type("application/json").send(body);
    }
    return reply
      .header("content-security-policy", CONSOLE_CSP)
      .header("x-frame-options", "DENY")
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "no-referrer")
      .header("cache-control", name === "index.html" ? "no-store" : "public, max-age=31536000, immutable")
      .type(file.type)
      .send(file.body);
  };
  app.get("/console", (_request, reply) => reply.redirect(CONSOLE_PATH, 301));
  app.get<{ Params: { "*": string } }>(`${CONSOLE_PATH}*`, (request, reply) =>
    send(reply, request.params["*"] || "index.html"),
  );
}
