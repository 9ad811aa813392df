import { builtinModules } from "node:module";

const BUILTINS = new Set(builtinModules);

/** Whether an import specifier names a Node built-in module (`node:fs`, `fs`, `fs/promises`, ...). */
export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || BUILTINS.has(specifier) || BUILTINS.has(specifier.split("/")[0]!);
}

/** The part of a Vite/Rollup plugin the guard uses (kept structural so this file needs no Vite types). */
export interface BrowserGuardPlugin {
  name: string;
  enforce: "pre";
  resolveId(
    this: { error(message: string): never },
    source: string,
    importer: string | undefined,
  ): null | undefined;
}

/**
 * A Vite plugin that fails the build on any import of a Node built-in module,
 * naming the importing file, instead of Vite's default (an empty
 * `__vite-browser-external` stub and a warning): a browser bundle that builds is
 * one that never reaches `node:fs` & co. O(1) per import.
 */
export function browserGuard(): BrowserGuardPlugin {
  return {
    name: "calm-ldp-browser-guard",
    enforce: "pre",
    resolveId(source, importer) {
      if (isNodeBuiltin(source)) {
        this.error(
          `browserGuard: ${importer ?? "<entry>"} imports the Node built-in ${JSON.stringify(source)}; the page must bundle for browsers`,
        );
      }
      return null;
    },
  };
}
