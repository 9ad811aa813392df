import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  createOracle,
  isOracleName,
  ORACLE_NAMES,
  ORACLE_TABLE,
  oracleEntry,
  oracleFactories,
} from "./registry.js";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

/** The first-column names of the markdown table that follows `heading` in `text`. */
function tableNames(text: string, heading: string): string[] {
  const start = text.indexOf(heading);
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const rows = text
    .slice(start)
    .split("\n")
    .filter((line) => line.startsWith("| `"));
  const names: string[] = [];
  for (const row of rows) {
    const name = /^\| `([a-z0-9-]+)`/.exec(row)?.[1];
    if (name !== undefined) names.push(name);
  }
  return names;
}

describe("the oracle table (registry.ts) is the one registration point", () => {
  it("every line creates its oracle by name, with the name as id", () => {
    expect(ORACLE_NAMES).toEqual(Object.keys(ORACLE_TABLE));
    expect(Object.keys(oracleFactories)).toEqual(ORACLE_NAMES);
    for (const name of ORACLE_NAMES) {
      const domain = oracleEntry(name).fixedDomain ?? 5;
      const oracle = createOracle(name, { eps: 1, domain });
      expect(oracle.id).toBe(name);
      expect(isOracleName(name)).toBe(true);
      const device = oracleEntry(name).device?.({ eps: 1, domain });
      if (device !== undefined) expect(device.fingerprint, name).toBe(oracle.fingerprint);
    }
    expect(isOracleName("toString")).toBe(false);
    expect(() => createOracle("nope", { eps: 1, domain: 4 })).toThrow(
      new RegExp(`createOracle: name must be one of ${ORACLE_NAMES.join(", ")}`),
    );
  });

  it("every line has its row in the README's oracle table and in docs/algorithms.md (CONTRIBUTING step 4)", () => {
    const readme = tableNames(read("../README.md"), "## Oracles");
    const algorithms = tableNames(read("../../../docs/algorithms.md"), "## Frequency oracles");
    for (const name of ORACLE_NAMES) {
      expect(readme, `README.md "## Oracles" has no row for ${name}`).toContain(name);
      // adaptive is described below the table (it runs grr or oue).
      if (name !== "adaptive")
        expect(algorithms, `docs/algorithms.md has no row for ${name}`).toContain(name);
    }
  });
});
