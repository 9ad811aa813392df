import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The shared datasets folder: `$CALM_LDP_DATA`, else `../shared/datasets` beside
 * the repository root (found by walking up to `pnpm-workspace.yaml`).
 */
export function defaultDataRoot(): string {
  if (process.env.CALM_LDP_DATA) return process.env.CALM_LDP_DATA;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "pnpm-workspace.yaml"))) {
    const parent = dirname(dir);
    if (parent === dir) return resolve("../shared/datasets");
    dir = parent;
  }
  return join(dir, "..", "shared", "datasets");
}
