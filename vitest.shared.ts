import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";
import { workspaceSourceAliases } from "./workspace-source-aliases.ts";

const root = fileURLToPath(new URL(".", import.meta.url));
const packagesDir = join(root, "packages");

/**
 * Every workspace package, and each subpath it exports (`@calm-ldp/datasets/node`),
 * resolves to its TypeScript source: tests never need a build.
 */
const sourceAliases = workspaceSourceAliases(packagesDir);

/** The shared vitest setup; a package's own `vitest.config.ts` is `export default packageTestConfig()`. */
export function packageTestConfig(overrides: ViteUserConfig = {}) {
  return defineConfig({
    ...overrides,
    resolve: { alias: sourceAliases, ...(overrides.resolve ?? {}) },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      environment: "node",
      // Generous: turbo runs every package's tests at once on a 2-core machine, and the
      // statistical tests (hundreds of seeded runs) take a minute or more under that load.
      testTimeout: 180_000,
      // One worker process runs all of a package's test files in turn (vitest's default
      // starts a fresh process per file, which re-imports the sources through vite: ~0.25 s
      // of CPU per file, ~40 s over the suite). Tests restore what they mock or set
      // (spies, process.env) and module-level state is caches only.
      isolate: false,
      passWithNoTests: false,
      // Under CI, also write a JSON report that .ci/summarize-tests.mjs sums into one closing line.
      reporters: process.env.CI ? ["default", "json"] : ["default"],
      outputFile: process.env.CI ? { json: "test-results.json" } : undefined,
      ...(overrides.test ?? {}),
    },
  });
}
