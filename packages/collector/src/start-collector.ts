import Fastify, { type FastifyInstance } from "fastify";
import type { CollectorOptions } from "./api.js";
import { collectorMetrics, registerMetricsRoute } from "./metrics.js";
import { createCollector } from "./server.js";

/** Options of {@link startCollector}: the collector's, plus where to listen. */
export interface StartCollectorOptions extends CollectorOptions {
  /** Interface to listen on (default "127.0.0.1", loopback only). */
  readonly host?: string;
  /** TCP port (default 0: any free port; the chosen one is in `url`). */
  readonly port?: number;
  /**
   * Serve `GET /metrics` on this port of `host` instead of the API's port (0:
   * any free port; see `metricsUrl`); default: on the API's port.
   */
  readonly metricsPort?: number;
}

/** A listening collector. */
export interface RunningCollector {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly port: number;
  readonly app: FastifyInstance;
  /** With `metricsPort`: the metrics endpoint's base URL (`${metricsUrl}/metrics`). */
  readonly metricsUrl?: string;
  /** Stop accepting requests, finish the ones in flight, then close the storage. */
  close(): Promise<void>;
}

/**
 * Create the collector (see `createCollector`) and listen on `host:port`
 * (loopback by default). `close()` stops the server first, so every request
 * answered before it resolves was stored, then closes the storage.
 */
export async function startCollector(options: StartCollectorOptions): Promise<RunningCollector> {
  const separate = options.metricsPort !== undefined;
  const app = await createCollector(separate ? { ...options, metricsRoute: false } : options);
  const host = options.host ?? "127.0.0.1";
  const metricsApp = separate ? Fastify({ logger: false }) : undefined;
  if (metricsApp) registerMetricsRoute(metricsApp, collectorMetrics(app));
  await app.listen({ host, port: options.port ?? 0 });
  const port = listeningPort(app, options.port);
  if (metricsApp) await metricsApp.listen({ host, port: options.metricsPort! });
  const base = (p: number) => `http://${host.includes(":") ? `[${host}]` : host}:${p}`;
  let closing: Promise<void> | undefined;
  return {
    url: base(port),
    port,
    app,
    ...(metricsApp ? { metricsUrl: base(listeningPort(metricsApp, options.metricsPort)) } : {}),
    close: () => {
      closing ??= (async () => {
        await metricsApp?.close();
        await app.close();
        await options.storage.close();
      })();
      return closing;
    },
  };
}

function listeningPort(app: FastifyInstance, asked: number | undefined): number {
  const address = app.server.address();
  return typeof address === "object" && address !== null ? address.port : (asked ?? 0);
}
