import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "./errors.js";
import { describeOracleContract } from "./testing/index.js";
import { loadWalkthrough } from "./walkthrough-support.js";

// CONTRIBUTING.md "Adding an oracle", executed as written: the oracle's code block, the
// registry line, and the contract on that line, as src/contract.test.ts runs it on every table line.
const walkthrough = await loadWalkthrough();
for (const [name, { create, device, contractConfigs }] of Object.entries(walkthrough.table)) {
  describeOracleContract(`${name} (CONTRIBUTING walk-through)`, create, { configs: contractConfigs, device });
}

describe("the CONTRIBUTING walk-through", () => {
  it("registers one line, named as its oracle's id", () => {
    expect(Object.keys(walkthrough.table)).toEqual(["direct-example"]);
    expect(walkthrough.table["direct-example"]!.create({ eps: 1, domain: 4 }).id).toBe("direct-example");
  });

  it("imports the package by relative path, never itself", () => {
    expect(walkthrough.oracleCode).not.toMatch(/@calm-ldp\/frequency-oracles/);
    expect(walkthrough.oracleCode).toMatch(/from "\.\/define-oracle\.js"/);
  });

  it("names its own factory in errors", () => {
    const { createDirectExample } = walkthrough;
    expect(() => createDirectExample({ eps: Number.NaN, domain: 4 })).toThrow(
      new InvalidParameterError("createDirectExample: eps must be a finite number in (0, 20] (got NaN)"),
    );
    expect(() => createDirectExample({ eps: 1, domain: 1 })).toThrow(/^createDirectExample: domain must be/);
    expect(() => createDirectExample(null as never)).toThrow(
      /^createDirectExample: options must be an object/,
    );
  });

  it("passes the root lint (biome check: format, lint, sorted imports) as src/direct-example.ts", () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const biome = (code: string) =>
      spawnSync(
        `${root}node_modules/.bin/biome`,
        ["check", "--write", "--stdin-file-path=packages/frequency-oracles/src/direct-example.ts"],
        { cwd: root, input: code, encoding: "utf8" },
      );
    // The check bites: the same code with its first import moved last comes back sorted.
    const [first, ...rest] = walkthrough.oracleCode.split("\n");
    const unsorted = [...rest.slice(0, 4), first, ...rest.slice(4)].join("\n");
    expect(biome(unsorted).stdout).toBe(walkthrough.oracleCode);
    const result = biome(walkthrough.oracleCode);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    // With stdin, `check --write` prints the fixed file (exit 0 unless something is not fixable):
    // nothing to fix (format, import order, safe lint fixes) means it prints the code unchanged.
    expect(result.stdout).toBe(walkthrough.oracleCode);
  });
});
