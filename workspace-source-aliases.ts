import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One alias: a package specifier (exact match) and the source file it resolves to. */
export interface SourceAlias {
  find: RegExp;
  replacement: string;
}

/**
 * Every workspace package's entry points as aliases to their TypeScript source
 * (`@calm-ldp/x` -> `packages/x/src/index.ts`, `@calm-ldp/x/sub` -> `src/sub.ts`
 * or `src/sub/index.ts`): what lets the tests (vitest.shared.ts) and the web page's
 * Vite build (apps/web) run from source without `pnpm build`. O(packages).
 */
export function workspaceSourceAliases(packagesDir: string): SourceAlias[] {
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, "package.json")))
    .flatMap((entry) => {
      const dir = join(packagesDir, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        exports?: Record<string, unknown>;
      };
      const subpaths = Object.keys(manifest.exports ?? {}).filter(
        (key) => key !== "." && key !== "./package.json",
      );
      return [
        ...subpaths.map((key) => {
          const sub = key.slice(2);
          const file = existsSync(join(dir, "src", `${sub}.ts`))
            ? join(dir, "src", `${sub}.ts`)
            : join(dir, "src", sub, "index.ts");
          return { find: new RegExp(`^@calm-ldp/${entry.name}/${sub}$`), replacement: file };
        }),
        { find: new RegExp(`^@calm-ldp/${entry.name}$`), replacement: join(dir, "src", "index.ts") },
      ];
    });
}
