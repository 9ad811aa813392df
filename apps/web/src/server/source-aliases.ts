import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { packagesDir } from "./paths.js";

/** One Vite alias: a package specifier (exact match) and the source file it resolves to. */
export interface SourceAlias {
  find: RegExp;
  replacement: string;
}

/**
 * Every workspace package's entry points as Vite aliases to their TypeScript
 * source (`@calm-ldp/x` -> `packages/x/src/index.ts`, `@calm-ldp/x/sub` ->
 * `src/sub.ts` or `src/sub/index.ts`), as the tests resolve them: the page is
 * built from source and never needs `pnpm build` first. O(packages).
 */
export function sourceAliases(): SourceAlias[] {
  const root = packagesDir();
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, "package.json")))
    .flatMap((entry) => {
      const dir = join(root, entry.name);
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
