import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { newOracleFiles } from "../scripts/new-oracle.js";
import { exactWorstLogRatio } from "./exact-privacy.js";
import { declaredSupportMismatch } from "./law-support.js";
import { atPackageSource } from "./walkthrough-support.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const registry = readFileSync(new URL("./registry.ts", import.meta.url), "utf8");

/** biome check --write on stdin: returns the fixed text (equal to the input when nothing needs fixing). */
function biome(path: string, code: string): { status: number | null; stdout: string } {
  return spawnSync(`${root}node_modules/.bin/biome`, ["check", "--write", `--stdin-file-path=${path}`], {
    cwd: root,
    input: code,
    encoding: "utf8",
  });
}

describe("pnpm new-oracle <name>", () => {
  const files = newOracleFiles("my-oracle", registry);

  it("writes the oracle, its table line and a changeset, all passing the root lint", () => {
    expect([...files.keys()]).toEqual([
      "packages/frequency-oracles/src/my-oracle.ts",
      "packages/frequency-oracles/src/registry.ts",
      ".changeset/frequency-oracles-my-oracle.md",
    ]);
    const table = files.get("packages/frequency-oracles/src/registry.ts")!;
    expect(table).toContain('  "my-oracle": { create: createMyOracle },\n} as const satisfies');
    expect(table).toContain('import { createMyOracle } from "./my-oracle.js";');
    for (const path of [...files.keys()].filter((p) => p.endsWith(".ts"))) {
      const result = biome(path, files.get(path)!);
      expect(result.status, path).toBe(0);
      expect(result.stdout, path).toBe(files.get(path));
    }
  });

  it("the skeleton is a working oracle named after its factory", async () => {
    const file = join(tmpdir(), `calm-ldp-new-oracle-${process.pid}-${randomUUID().slice(0, 8)}.ts`);
    writeFileSync(file, atPackageSource(files.get("packages/frequency-oracles/src/my-oracle.ts")!));
    try {
      const { createMyOracle } = await import(/* @vite-ignore */ file);
      const oracle = createMyOracle({ eps: 1, domain: 8 });
      expect(oracle.id).toBe("my-oracle");
      expect(exactWorstLogRatio(oracle)).toBeLessThanOrEqual(1 + 1e-9);
      expect(declaredSupportMismatch(oracle)).toBeUndefined();
      expect(() => createMyOracle({ eps: Number.NaN, domain: 8 })).toThrow(/^createMyOracle: eps must be/);
    } finally {
      rmSync(file, { force: true });
    }
  });

  it("refuses a bad or registered name", () => {
    expect(() => newOracleFiles("My Oracle", registry)).toThrow(/name must match/);
    expect(() => newOracleFiles("grr", registry)).toThrow(/already in ORACLE_TABLE/);
  });
});
