import { fileURLToPath } from "node:url";

/** The console page's sources (index.html, its modules, its stylesheet). */
export const CONSOLE_SOURCE = fileURLToPath(new URL("../src/console-page/", import.meta.url));
/** Where the package ships the built console (`registerConsole` serves it by default). */
export const CONSOLE_DIST = fileURLToPath(new URL("../dist/console/", import.meta.url));

/**
 * Build the operator console with Vite (the project's page tooling, as the web
 * demo's `buildPage`): `src/console-page/index.html` and what it imports, into
 * `outDir` (emptied first), ES2022, minified, relative asset paths (`base: "./"`,
 * so it works under `/console/` and behind a path prefix), no public dir, no
 * source maps, and no dependency but its own modules (they import only types from
 * the collector). About a second. Resolves with the built files' names and sizes.
 */
export async function buildConsole(
  outDir: string = CONSOLE_DIST,
): Promise<{ file: string; bytes: number }[]> {
  const { build } = await import("vite");
  const output = await build({
    configFile: false,
    root: CONSOLE_SOURCE,
    base: "./",
    logLevel: "warn",
    clearScreen: false,
    publicDir: false,
    build: {
      outDir,
      emptyOutDir: true,
      target: "es2022",
      minify: true,
      sourcemap: false,
      modulePreload: { polyfill: false },
      reportCompressedSize: false,
    },
  });
  const results = Array.isArray(output) ? output : [output];
  return results.flatMap((result) =>
    "output" in result
      ? result.output.map((chunk) => ({
          file: chunk.fileName,
          bytes: chunk.type === "chunk" ? Buffer.byteLength(chunk.code) : Buffer.byteLength(chunk.source),
        }))
      : [],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await buildConsole();
  for (const { file, bytes } of files) console.log(`console: ${file} ${bytes} bytes`);
}
