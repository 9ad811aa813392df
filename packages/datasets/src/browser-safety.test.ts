import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const NODE_BUILTINS = new Set([
  "fs",
  "fs/promises",
  "zlib",
  "readline",
  "path",
  "os",
  "stream",
  "url",
  "buffer",
  "child_process",
  "worker_threads",
]);

/** Every module reachable from `entry` through relative imports, with the bare/`node:` specifiers each one uses. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, "utf8");
    const external: string[] = [];
    seen.set(file, external);
    for (const match of text.matchAll(IMPORT)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith(".")) visit(join(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else external.push(specifier);
    }
  };
  visit(entry);
  return seen;
}

describe("browser safety", () => {
  it("the main entry (src/index.ts) reaches no Node built-in module", () => {
    const modules = reachable(join(SRC, "index.ts"));
    expect(modules.size).toBeGreaterThan(15);
    const offenders = [...modules].flatMap(([file, specifiers]) =>
      specifiers
        .filter((s) => s.startsWith("node:") || NODE_BUILTINS.has(s))
        .map((s) => `${file.slice(SRC.length + 1)} imports ${s}`),
    );
    expect(offenders).toEqual([]);
    expect([...modules.keys()].some((file) => file.includes(`${join("src", "node")}`))).toBe(false);
  });

  it("the node entry (src/node.ts) does reach the file loaders", () => {
    const modules = reachable(join(SRC, "node.ts"));
    const builtins = [...modules.values()].flat().filter((s) => s.startsWith("node:"));
    expect(builtins).toEqual(expect.arrayContaining(["node:fs", "node:zlib"]));
  });
});
