import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Plugin } from "esbuild";
import { build as tsup } from "tsup";
import { afterAll, describe, expect, it } from "vitest";

const here = fileURLToPath(new URL(".", import.meta.url));
const packages = join(here, "..", "..");
/** The size budget of the browser bundle: 12 KB gzipped. */
const BUDGET_BYTES = 12 * 1024;
/** The tokens subpath's budget (it bundles createReport too): 14 KB gzipped. */
const TOKENS_BUDGET_BYTES = 14 * 1024;

/**
 * Sibling packages resolve to their sources (`src/index.ts`), or to their built
 * `dist/index.js`, which is what a bundler gets from the published packages
 * (one pre-bundled file per package, so less of it shakes away).
 */
function siblings(kind: "src" | "dist", distRoot = packages): Plugin {
  return {
    name: `calm-ldp-${kind}`,
    setup(b) {
      const names = new Set(readdirSync(packages));
      b.onResolve({ filter: /^@calm-ldp\/[a-z-]+$/ }, (args) => {
        const name = args.path.slice("@calm-ldp/".length);
        if (!names.has(name)) return undefined;
        return {
          path:
            kind === "src"
              ? join(packages, name, "src", "index.ts")
              : join(distRoot, name, "dist", "index.js"),
        };
      });
    },
  };
}

async function bundle(kind: "src" | "dist", only?: string, entryFile = "index.ts", distRoot = packages) {
  const entry = only
    ? {
        stdin: { contents: `export { ${only} } from "./index.ts";`, resolveDir: here, loader: "ts" as const },
      }
    : { entryPoints: [join(here, entryFile)] };
  const result = await build({
    ...entry,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser", // a Node built-in import fails to resolve here
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [siblings(kind, distRoot)],
  });
  const code = result.outputFiles[0]!.contents;
  return { result, code, gzipped: gzipSync(code, { level: 9 }).length };
}

/**
 * The sibling packages the client bundles: the `@calm-ldp/*` dependencies of
 * its package.json, and theirs, transitively.
 */
function bundledSiblings(): string[] {
  const found = new Set<string>();
  const visit = (dir: string) => {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      const name = dep.startsWith("@calm-ldp/") ? dep.slice("@calm-ldp/".length) : undefined;
      if (name === undefined || found.has(name)) continue;
      found.add(name);
      visit(join(packages, name));
    }
  };
  visit(join(here, ".."));
  return [...found];
}
const BUNDLED_SIBLINGS = bundledSiblings();

/**
 * A folder whose `<name>/dist/index.js` is each bundled sibling as npm users get
 * it: the packages' own `dist/` when `pnpm build` has made it, otherwise the same
 * tsup build (the repository's `tsup.config.base.ts` options, ESM only, no
 * declarations, `@calm-ldp/*` left external as in the published files) written to
 * a temporary folder, so the measurement never depends on a prior build.
 * Cost: seven esbuild runs, well under a second each.
 */
function builtSiblingsRoot(): Promise<{ root: string; fresh: boolean }> {
  siblingsBuild ??= buildSiblings();
  return siblingsBuild;
}
let siblingsBuild: Promise<{ root: string; fresh: boolean }> | undefined;
async function buildSiblings(): Promise<{ root: string; fresh: boolean }> {
  if (BUNDLED_SIBLINGS.every((name) => existsSync(join(packages, name, "dist", "index.js"))))
    return { root: packages, fresh: false };
  if (process.env.CI)
    throw new Error("CI: the sibling packages' dist/ is missing; .ci/run builds before it tests");
  const root = mkdtempSync(join(tmpdir(), "calm-ldp-bundle-"));
  temporary.push(root);
  for (const name of BUNDLED_SIBLINGS) {
    await tsup({
      config: false,
      entry: { index: join(packages, name, "src", "index.ts") },
      format: ["esm"],
      dts: false,
      sourcemap: false,
      clean: false,
      treeshake: true,
      target: "es2022",
      splitting: false,
      silent: true,
      external: [/^@calm-ldp\//],
      outDir: join(root, name, "dist"),
    });
  }
  return { root, fresh: true };
}
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe("browser bundle", () => {
  it(`the whole client entry (createReporter and indexedDbStorage included), minified for browsers, is at most ${BUDGET_BYTES} bytes gzipped, with no Node built-ins`, async () => {
    const { result, code, gzipped } = await bundle("src");
    // Modules that contribute bytes to the output (parsed-but-shaken modules contribute 0).
    const output = Object.values(result.metafile.outputs)[0]!;
    const inputs = Object.entries(output.inputs)
      .filter(([, info]) => info.bytesInOutput > 0)
      .map(([path]) => path);
    console.log(
      `client bundle: ${code.length} bytes minified, ${gzipped} bytes gzipped, ${inputs.length} modules`,
    );
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
    expect(inputs.some((path) => path.startsWith("node:"))).toBe(false);
    // Only the three oracles a CALM client runs are bundled, not the registry.
    expect(
      inputs.filter((path) => /frequency-oracles\/src\/(ss|hr|olh|local-hash|registry)\.ts$/.test(path)),
    ).toEqual([]);
    // Only their device side: no aggregator, estimate, count simulation, binomial sampler or full oracle.
    expect(
      inputs.filter((path) =>
        /(frequency-oracles\/src\/(aggregator|estimate|simulate|define-oracle)|random\/src\/binomial)\.ts$/.test(
          path,
        ),
      ),
    ).toEqual([]);
    expect(new TextDecoder().decode(code)).not.toMatch(/Math\.random/);
    // The persistent reporter and the IndexedDB adapter are in it; the Node file storage is not.
    expect(
      inputs.filter((path) => /(^|client\/)src\/(create-reporter|storage|reporter-state)\.ts$/.test(path)),
    ).toHaveLength(3);
    expect(inputs.some((path) => /(^|client\/)src\/node\.ts$/.test(path))).toBe(false);
  });

  it(`an app importing only createReporter and indexedDbStorage gets at most ${BUDGET_BYTES} bytes gzipped`, async () => {
    const { root } = await builtSiblingsRoot();
    for (const kind of ["src", "dist"] as const) {
      const { code, gzipped } = await bundle(kind, "createReporter, indexedDbStorage", "index.ts", root);
      console.log(
        `createReporter + indexedDbStorage (${kind}): ${code.length} bytes minified, ${gzipped} bytes gzipped`,
      );
      expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
      expect(new TextDecoder().decode(code)).toMatch(/indexedDB/);
    }
  });

  it(`against the built packages (what npm users bundle) it is within ${BUDGET_BYTES} bytes gzipped too`, async () => {
    const { root, fresh } = await builtSiblingsRoot();
    const { code, gzipped } = await bundle("dist", undefined, "index.ts", root);
    console.log(
      `client bundle from dist (${fresh ? "siblings built by this test into a temporary folder" : "the packages' own dist/"}): ${code.length} bytes minified, ${gzipped} bytes gzipped`,
    );
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  }, 60_000);

  it(`the tokens subpath (@calm-ldp/client/tokens) is its own bundle, at most ${TOKENS_BUDGET_BYTES} bytes gzipped; the base entry holds none of it`, async () => {
    const tokens = await bundle("src", undefined, "tokens/index.ts");
    const inputs = Object.keys(Object.values(tokens.result.metafile.outputs)[0]!.inputs);
    console.log(
      `client tokens bundle (blind RSA, token wire, createTokenReport with createReport): ${tokens.code.length} bytes minified, ${tokens.gzipped} bytes gzipped`,
    );
    expect(tokens.gzipped).toBeLessThanOrEqual(TOKENS_BUDGET_BYTES);
    expect(inputs.some((path) => path.startsWith("node:"))).toBe(false);
    const base = await bundle("src");
    const baseInputs = Object.keys(Object.values(base.result.metafile.outputs)[0]!.inputs);
    expect(baseInputs.filter((path) => /src\/tokens\//.test(path))).toEqual([]);
    expect(new TextDecoder().decode(base.code)).not.toMatch(/calm-ldp token view/);
  });
});
