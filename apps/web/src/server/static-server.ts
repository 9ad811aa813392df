import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
};

/** A running static file server. */
export interface StaticServer {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** Stop listening and drop open connections; resolves when the server has closed. */
  close(): Promise<void>;
}

/** Options of {@link startStaticServer}. */
export interface StaticServerOptions {
  /** Interface to bind (default 127.0.0.1: loopback only). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** Called once per request with its method, path and status (for logs). */
  onRequest?(method: string, path: string, status: number): void;
}

/** The file under `root` a URL path names, or undefined when it escapes `root` or does not exist. */
export function resolveStaticPath(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split("?")[0]!.split("#")[0]!);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0")) return undefined;
  const base = resolve(root);
  const path = resolve(base, `.${normalize(`/${decoded}`)}`);
  if (path !== base && !path.startsWith(base + sep)) return undefined;
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, "index.html") : path;
  return existsSync(file) && statSync(file).isFile() ? file : undefined;
}

/**
 * Serve the files of `root` over HTTP on 127.0.0.1 (GET and HEAD only; `/` is
 * `index.html`; paths outside `root` are 404; no caching, so a rebuilt page is
 * what the browser gets). Resolves once listening.
 */
export function startStaticServer(root: string, options: StaticServerOptions = {}): Promise<StaticServer> {
  const host = options.host ?? "127.0.0.1";
  const server: Server = createServer((request, response) => {
    const method = request.method ?? "GET";
    const urlPath = request.url ?? "/";
    const finish = (status: number, body?: string) => {
      options.onRequest?.(method, urlPath, status);
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8" });
      response.end(body);
    };
    if (method !== "GET" && method !== "HEAD") return finish(405, "method not allowed\n");
    const file = resolveStaticPath(root, urlPath);
    if (!file) return finish(404, "not found\n");
    options.onRequest?.(method, urlPath, 200);
    response.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "content-length": statSync(file).size,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    if (method === "HEAD") return response.end();
    createReadStream(file).pipe(response);
  });
  return new Promise((resolvePromise, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      const port = (server.address() as AddressInfo).port;
      resolvePromise({
        url: `http://${host}:${port}/`,
        port,
        host,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
