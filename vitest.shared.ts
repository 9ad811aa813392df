import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const packagesDir = join(root, "packages");

/** Every workspace package resolves to its TypeScript source: tests never need a build. */
const sourceAliases = readdirSync(packagesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({
    find: new RegExp(`^@calm-ldp/${entry.name}$`),
    replacement: join(packagesDir, entry.name, "src", "index.ts"),
  }));

/** The shared vitest setup; a package's own `vitest.config.ts` is `export default packageTestConfig()`. */
export function packageTestConfig(overrides: ViteUserConfig = {}) {
  return defineConfig({
    ...overrides,
    resolve: { alias: sourceAliases, ...(overrides.resolve ?? {}) },
    test: {
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      environment: "node",
      testTimeout: 60_000,
      passWithNoTests: false,
      // Under CI, also write a JSON report that .ci/summarize-tests.mjs sums into one closing line.
      reporters: process.env.CI ? ["default", "json"] : ["default"],
      outputFile: process.env.CI ? { json: "test-results.json" } : undefined,
      ...(overrides.test ?? {}),
    },
  });
}
