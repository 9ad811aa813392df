import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The demo app's directory (the one whose package.json is `@calm-ldp/demo`),
 * found by walking up from this module, so it is right both from source
 * (`src/web/`) and from the bundled CLI (`dist/`). O(depth).
 */
export function demoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const name = (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name;
      if (name === "@calm-ldp/demo") return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`demoRoot: no @calm-ldp/demo package.json above ${import.meta.url}`);
    dir = parent;
  }
}

/** Where the page's sources are (`apps/demo/web`). */
export function webSourceDir(): string {
  return join(demoRoot(), "web");
}

/** Where `serve` builds the page by default (`apps/demo/dist-web`, gitignored). */
export function defaultPageDir(): string {
  return join(demoRoot(), "dist-web");
}

/** The workspace's `packages/` directory. */
export function packagesDir(): string {
  return join(demoRoot(), "..", "..", "packages");
}
