import { defineConfig, type Options } from "tsup";

/**
 * The one tsup configuration every package builds with: ESM + CJS + `.d.ts`,
 * entry `src/index.ts` (plus any extra entries a package names), no bundling of
 * dependencies. Type declarations resolve sibling packages through their built
 * `dist/` (turbo builds dependencies first), not through the source `paths`.
 */
export function packageConfig(overrides: Options = {}) {
  return defineConfig({
    entry: ["src/index.ts"],
    format: ["esm", "cjs"],
    dts: { compilerOptions: { paths: {}, composite: false } },
    sourcemap: true,
    clean: true,
    treeshake: true,
    target: "es2022",
    splitting: false,
    ...overrides,
  });
}
