import type { FastifyReply, FastifyRequest } from "fastify";
import { InvalidParameterError } from "./errors.js";

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

/**
 * Check and normalise the origins allowed to call the collector from a browser.
 * Each must be an origin exactly as browsers send it in `Origin`:
 * `http(s)://host[:port]` with no path, query, fragment, user or trailing slash
 * (the default port is dropped, the host lower-cased). Throws
 * `InvalidParameterError` naming the first bad entry. O(total length).
 */
export function parseAllowedOrigins(origins: readonly string[], where = "allowOrigins"): readonly string[] {
  if (!Array.isArray(origins)) throw new InvalidParameterError(`${where} must be an array of origins`);
  return origins.map((origin) => {
    const bad = (why: string) =>
      new InvalidParameterError(
        `${where}: ${JSON.stringify(origin)} is not an origin (${why}); expected http(s)://host[:port], e.g. https://app.example.org`,
      );
    if (typeof origin !== "string" || origin === "") throw bad("empty");
    if (origin === "*" || origin === "null") throw bad("wildcards and null origins are never allowed");
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw bad("not a URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw bad("scheme must be http or https");
    if (url.username !== "" || url.password !== "") throw bad("no user or password");
    if (!/^https?:\/\/[^/?#]+$/i.test(origin)) throw bad("no path, query, fragment or trailing slash");
    return url.origin;
  });
}

/**
 * CORS for the endpoints browsers call (the plan and the report endpoints): a
 * request whose `Origin` is exactly one of `allowed` gets
 * `Access-Control-Allow-Origin: <that origin>`; every answer of these endpoints
 * carries `Vary: Origin` (caches must not reuse one origin's answer for another).
 * Never `*`, never credentials. Admin endpoints do not use this (no CORS headers
 * there, ever). Lookups O(1) per request.
 */
export class CorsPolicy {
  readonly #allowed: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.#allowed = new Set(parseAllowedOrigins(origins));
  }

  /** True when `origin` (the request's `Origin` header) is allowed. */
  allows(origin: string | undefined): origin is string {
    return typeof origin === "string" && this.#allowed.has(origin);
  }

  /** Route hook: the CORS headers of an actual (non-preflight) request. */
  readonly decorate = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header("vary", "Origin");
    const origin = request.headers.origin;
    if (this.allows(origin)) reply.header("access-control-allow-origin", origin);
  };

  /**
   * Answer a preflight (`OPTIONS`) of an endpoint that accepts `method`: 204 with
   * the allow headers when the origin is allowed and asks for `method`; else false
   * (the caller refuses, with no allow header).
   */
  preflight(request: FastifyRequest, reply: FastifyReply, method: string): boolean {
    const origin = request.headers.origin;
    const asked = request.headers["access-control-request-method"];
    reply.header("vary", "Origin");
    if (!this.allows(origin) || asked !== method) return false;
    reply
      .code(204)
      .header("access-control-allow-origin", origin)
      .header("access-control-allow-methods", method)
      .header("access-control-allow-headers", "content-type")
      .header("access-control-max-age", String(PREFLIGHT_MAX_AGE));
    return true;
  }
}
