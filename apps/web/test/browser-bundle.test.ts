import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isNodeBuiltin } from "../src/server/browser-guard.js";
import { packagesDir, webSourceDir } from "../src/server/paths.js";
import { bundleForBrowser } from "./browser-support.js";

/** `@calm-ldp/<name>` packages the page's modules import (main entries only: a subpath would show up as `x/y`). */
function pageImports(): string[] {
  const names = new Set<string>();
  const dir = webSourceDir();
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts"))) {
    for (const match of readFileSync(join(dir, file), "utf8").matchAll(/from "@calm-ldp\/([^"]+)"/g))
      names.add(match[1]!);
  }
  return [...names].sort();
}

/** Those packages and every workspace package they depend on. */
function closure(roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(readFileSync(join(packagesDir(), name, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(manifest.dependencies ?? {}))
      if (dep.startsWith("@calm-ldp/")) visit(dep.slice("@calm-ldp/".length));
  };
  roots.forEach(visit);
  return [...seen].sort();
}

describe("browser bundling of the packages the web demo uses", () => {
  it("finds the page's packages and their workspace dependencies", () => {
    const direct = pageImports();
    expect(direct).toEqual(expect.arrayContaining(["datasets", "experiments", "marginal-algebra", "random"]));
    expect(direct.some((name) => name.includes("/"))).toBe(false); // never the datasets `/node` entry
    expect(closure(direct)).toEqual(expect.arrayContaining(["calm-core", "frequency-oracles"]));
  });

  it("every one of them bundles for the browser target without a Node built-in", async () => {
    const names = closure(pageImports());
    const entries = Object.fromEntries(
      names.map((name) => [name, join(packagesDir(), name, "src", "index.ts")]),
    );
    for (const file of Object.values(entries)) expect(existsSync(file), file).toBe(true);
    const chunks = await bundleForBrowser(entries);
    const files = chunks.map((chunk) => chunk.fileName);
    expect(files).toEqual(expect.arrayContaining(names.map((name) => `${name}.js`)));
    for (const chunk of chunks) {
      if (chunk.type !== "chunk") continue;
      expect(chunk.code, chunk.fileName).not.toContain("__vite-browser-external");
      const imports = [...chunk.imports, ...chunk.dynamicImports];
      expect(imports.filter(isNodeBuiltin), chunk.fileName).toEqual([]);
    }
  });

  it("the guard fails a bundle that reaches a Node built-in, naming the file and the module", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calm-bundle-"));
    const entry = join(dir, "uses-fs.ts");
    writeFileSync(
      entry,
      'import { readFileSync } from "node:fs";\nexport const read = () => readFileSync("x");\n',
    );
    await expect(bundleForBrowser({ "uses-fs": entry })).rejects.toThrow(
      /uses-fs\.ts imports the Node built-in "node:fs"/,
    );
    expect(isNodeBuiltin("fs/promises")).toBe(true);
    expect(isNodeBuiltin("zlib")).toBe(true);
    expect(isNodeBuiltin("vega")).toBe(false);
  });
});
