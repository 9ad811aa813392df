import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { browserGuard } from "./browser-guard.js";
import { packagesDir, webRoot, webSourceDir } from "./paths.js";
import { sourceAliases } from "./source-aliases.js";

/** Written next to the built page: when it was built and what it offers. */
export interface PageBuildInfo {
  /** ISO time of the build. */
  builtAt: string;
  /** Milliseconds the build took. */
  milliseconds: number;
  /** The method ids the page offers (`HARNESS_METHOD_IDS` at build time). */
  methods: string[];
  /** Vite's version. */
  vite: string;
}

/** Options of {@link buildPage}. */
export interface BuildPageOptions {
  /** Output directory (emptied first). */
  outDir: string;
  /** Vite's log level (default "warn"). */
  logLevel?: "info" | "warn" | "error" | "silent";
  /** Minify (default true). */
  minify?: boolean;
}

const BUILD_INFO = "build-info.json";

/** Newest modification time (ms) of any file under `dir`, skipping node_modules and dist folders. O(files). */
function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith("dist") || entry.name.startsWith("."))
      continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Whether the page in `outDir` is missing or older than anything it is built
 * from: the page sources and this build code (`apps/web/src`), every package's
 * `src/` and manifest, and the web app's manifest. O(source files).
 */
export function pageNeedsBuild(outDir: string): boolean {
  const info = join(outDir, BUILD_INFO);
  if (!existsSync(info) || !existsSync(join(outDir, "index.html"))) return true;
  const built = statSync(info).mtimeMs;
  const inputs = [
    join(webRoot(), "src"),
    join(webRoot(), "package.json"),
    ...readdirSync(packagesDir()).flatMap((name) => [
      join(packagesDir(), name, "src"),
      join(packagesDir(), name, "package.json"),
    ]),
  ];
  return inputs.some((input) =>
    existsSync(input) && statSync(input).isDirectory()
      ? newestMtime(input) > built
      : existsSync(input) && statSync(input).mtimeMs > built,
  );
}

/** The build info of the page in `outDir`, or undefined when there is none. */
export function readPageBuildInfo(outDir: string): PageBuildInfo | undefined {
  const info = join(outDir, BUILD_INFO);
  return existsSync(info) ? (JSON.parse(readFileSync(info, "utf8")) as PageBuildInfo) : undefined;
}

/**
 * Build the web demo (`apps/web/src/page`: the page, its main module and its Web
 * Worker) with Vite into `outDir`, every `@calm-ldp/*` package resolved to its
 * source and any Node built-in import an error (see `browserGuard`). Relative
 * asset paths (`base: "./"`), so the page can be served from any path. Writes
 * `build-info.json` ({@link PageBuildInfo}). Takes a few seconds (Vega is most of the bundle).
 */
export async function buildPage(options: BuildPageOptions): Promise<PageBuildInfo> {
  const vite = await import("vite");
  const { HARNESS_METHOD_IDS } = await import("@calm-ldp/experiments");
  const started = performance.now();
  const outDir = resolve(options.outDir);
  await vite.build({
    configFile: false,
    root: webSourceDir(),
    base: "./",
    logLevel: options.logLevel ?? "warn",
    clearScreen: false,
    publicDir: false,
    resolve: { alias: sourceAliases() },
    plugins: [browserGuard()],
    worker: { format: "es", plugins: () => [browserGuard()] },
    build: {
      outDir,
      emptyOutDir: true,
      target: "es2022",
      minify: options.minify ?? true,
      sourcemap: false,
      chunkSizeWarningLimit: 4096,
      reportCompressedSize: false,
    },
  });
  const info: PageBuildInfo = {
    builtAt: new Date().toISOString(),
    milliseconds: Math.round(performance.now() - started),
    methods: [...HARNESS_METHOD_IDS],
    vite: vite.version,
  };
  writeFileSync(join(outDir, BUILD_INFO), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}
