import { buildPage, type PageBuildInfo, pageNeedsBuild, readPageBuildInfo } from "./page-build.js";
import { defaultPageDir } from "./paths.js";
import { type StaticServer, startStaticServer } from "./static-server.js";

/** Options of {@link servePage}. */
export interface ServePageOptions {
  /** Port on 127.0.0.1 (0: any free port). */
  port: number;
  /** Directory of the built page (default `apps/web/dist-web`). */
  dir?: string;
  /** Build even when the page is current. */
  rebuild?: boolean;
  /** Where build notes go (default: nowhere). */
  log?(message: string): void;
}

/** A served page: the server, whether it was built just now, and its build info. */
export interface ServedPage {
  readonly server: StaticServer;
  readonly dir: string;
  readonly built: boolean;
  readonly info: PageBuildInfo;
}

/**
 * Build the web demo when it is missing or stale (see `pageNeedsBuild`), or
 * always with `rebuild`, then serve it on 127.0.0.1:`port`. The caller closes
 * `server`. A port in use is an error naming the port.
 */
export async function servePage(options: ServePageOptions): Promise<ServedPage> {
  const dir = options.dir ?? defaultPageDir();
  let built = false;
  if (options.rebuild || pageNeedsBuild(dir)) {
    options.log?.(`building the web page into ${dir} ...`);
    const info = await buildPage({ outDir: dir });
    options.log?.(
      `built in ${(info.milliseconds / 1000).toFixed(1)} s (methods: ${info.methods.join(", ")})`,
    );
    built = true;
  }
  let server: StaticServer;
  try {
    server = await startStaticServer(dir, { port: options.port });
  } catch (error) {
    if ((error as { code?: string }).code === "EADDRINUSE")
      throw new Error(`servePage: port ${options.port} on 127.0.0.1 is in use; choose another with --port`);
    throw error;
  }
  return { server, dir, built, info: readPageBuildInfo(dir)! };
}
