import { expect } from "vitest";
import type { CollectorStorage } from "../src/api.js";
import { StorageError } from "../src/index.js";
import { interceptedStorage } from "./support.js";

/**
 * A storage outage a test switches on and off: `wrap(storage)` (the `wrap` of a
 * `duckdbCollectors().start`) makes every call of `method` (every method when
 * omitted; `close` never) fail with `StorageError(message)` while `down` is
 * true, as a database that went away would; otherwise calls pass through.
 */
export function storageOutage(message: string, method?: string) {
  const outage = {
    down: false,
    wrap: (storage: CollectorStorage) =>
      interceptedStorage(storage, (called, call) =>
        outage.down && (method === undefined || called === method)
          ? Promise.reject(new StorageError(message))
          : call(),
      ),
  };
  return outage;
}

/**
 * POST `body` (a string as is, else as JSON) to the report endpoint of `round` on
 * the collector at `base`, as a client does (content type JSON unless `headers`
 * say otherwise); resolves with the raw response.
 */
export function postReports(
  base: string,
  round: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}/v1/rounds/${round}/reports`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/**
 * A 503 answer of a collector whose database is away: `Retry-After: 1` and a body
 * with `reason: "storage-unavailable"` and the `fields` given.
 */
export async function expectUnavailable(response: Response, fields: Record<string, unknown> = {}) {
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("1");
  expect(await response.json()).toMatchObject({ reason: "storage-unavailable", ...fields });
}
