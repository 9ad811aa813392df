import { CannotRunError } from "@calm-ldp/errors";
import type { Command } from "../cli-kit.js";

type WebApp = typeof import("@calm-ldp/web");

/**
 * The web app's build-and-serve code (`apps/web`), loaded only when serving. It
 * builds the page from the repository's sources, so it exists in a clone only:
 * under tsx or vitest it imports directly; from the built CLI (`dist/cli.js`,
 * where Node cannot load its TypeScript) through tsx's loader; an installed CLI
 * without the repository gets a CannotRunError saying so.
 */
async function loadWebApp(): Promise<WebApp> {
  try {
    return await import("@calm-ldp/web");
  } catch (direct) {
    try {
      const { tsImport } = await import("tsx/esm/api");
      return (await tsImport("@calm-ldp/web", import.meta.url)) as WebApp;
    } catch {
      const why = direct instanceof Error ? direct.message.split("\n")[0] : String(direct);
      throw new CannotRunError(
        `serve builds the web page from the calm-ldp repository's sources (apps/web) and needs a clone of it with its dev dependencies (pnpm install; then pnpm calm-ldp serve): ${why}`,
      );
    }
  }
}

interface ServeOptions {
  port: number;
  dir?: string;
  rebuild: boolean;
  seconds?: number;
}

/** Resolves after `seconds` (when given) or on SIGINT/SIGTERM, whichever comes first; returns why. */
function waitForStop(seconds: number | undefined): Promise<"timeout" | "signal"> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: "timeout" | "signal") => {
      if (timer) clearTimeout(timer);
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve(why);
    };
    const onSignal = () => stop("signal");
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    if (seconds !== undefined) timer = setTimeout(() => stop("timeout"), seconds * 1000);
  });
}

export const serveCommand: Command = {
  name: "serve",
  summary:
    "Build the web demo if needed and serve it on 127.0.0.1 (the whole pipeline in a browser page, in a Web Worker); Ctrl-C stops.",
  options: {
    port: {
      type: "integer",
      description: "port on 127.0.0.1 (0: any free port)",
      default: 5180,
      min: 0,
      max: 65535,
    },
    dir: { type: "string", description: "directory of the built page (default apps/web/dist-web)" },
    rebuild: { type: "boolean", description: "build the page even when it is up to date", default: false },
    seconds: {
      type: "number",
      description: "stop serving after this many seconds (default: until interrupted)",
      min: 0,
    },
  },
  async run(raw, context) {
    const options = raw as unknown as ServeOptions;
    const started = performance.now();
    const { servePage } = await loadWebApp();
    const page = await servePage({
      port: options.port,
      rebuild: options.rebuild,
      ...(options.dir !== undefined ? { dir: options.dir } : {}),
      log: context.log,
    });
    context.log(`calm-ldp serve: ${page.server.url} (Ctrl-C to stop)`);
    const stoppedBy = await waitForStop(options.seconds);
    await page.server.close();
    return {
      url: page.server.url,
      port: page.server.port,
      dir: page.dir,
      built: page.built,
      ...(page.built ? { buildSeconds: page.info.milliseconds / 1000 } : {}),
      methods: page.info.methods,
      stoppedBy,
      seconds: (performance.now() - started) / 1000,
    };
  },
  text(result: { url: string; stoppedBy: string; seconds: number }) {
    return `served ${result.url} for ${result.seconds.toFixed(1)} s (stopped by ${result.stoppedBy})`;
  },
};
