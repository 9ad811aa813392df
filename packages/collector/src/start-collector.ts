import type { FastifyInstance } from "fastify";
import type { CollectorOptions } from "./api.js";
import { createCollector } from "./server.js";

/** Options of {@link startCollector}: the collector's, plus where to listen. */
export interface StartCollectorOptions extends CollectorOptions {
  /** Interface to listen on (default "127.0.0.1", loopback only). */
  readonly host?: string;
  /** TCP port (default 0: any free port; the chosen one is in `url`). */
  readonly port?: number;
}

/** A listening collector. */
export interface RunningCollector {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  /** Stop accepting requests, finish the ones in flight, then close the storage. */
  close(): Promise<void>;
}

/**
 * Create the collector (see `createCollector`) and listen on `host:port`
 * (loopback by default). `close()` stops the server first, so every request
 * answered before it resolves was stored, then closes the storage.
 */
export async function startCollector(options: StartCollectorOptions): Promise<RunningCollector> {
  const app = await createCollector(options);
  const host = options.host ?? "127.0.0.1";
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : (options.port ?? 0);
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    app,
    close: () => {
      closing ??= (async () => {
        await app.close();
        await options.storage.close();
      })();
      return closing;
    },
  };
}
