import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The web app's directory (the one whose package.json is `@calm-ldp/web`),
 * found by walking up from this module, so it is right from source
 * (`src/server/`) and from a bundle that keeps this file's location. O(depth).
 */
export function webRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name;
      if (name === "@calm-ldp/web") return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`webRoot: no @calm-ldp/web package.json above ${import.meta.url}`);
    dir = parent;
  }
}

/** Where the page's sources are (`apps/web/src/page`: index.html, its modules and its Web Worker). */
export function webSourceDir(): string {
  return join(webRoot(), "src", "page");
}

/** Where `serve` builds the page by default (`apps/web/dist-web`, gitignored). */
export function defaultPageDir(): string {
  return join(webRoot(), "dist-web");
}

/** The workspace's `packages/` directory. */
export function packagesDir(): string {
  return join(webRoot(), "..", "..", "packages");
}
