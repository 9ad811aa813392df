import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type ViteUserConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
const packagesDir = join(root, "packages");

/**
 * Every workspace package, and each subpath it exports (`@calm-ldp/datasets/node`),
 * resolves to its TypeScript source: tests never need a build. A subpath `./x`
 * maps to `src/x.ts`, or `src/x/index.ts` when that is where it lives.
 */
const sourceAliases = readdirSync(packagesDir, { withFileTypes: true })
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
      passWithNoTests: false,
      // Under CI, also write a JSON report that .ci/summarize-tests.mjs sums into one closing line.
      reporters: process.env.CI ? ["default", "json"] : ["default"],
      outputFile: process.env.CI ? { json: "test-results.json" } : undefined,
      ...(overrides.test ?? {}),
    },
  });
}
