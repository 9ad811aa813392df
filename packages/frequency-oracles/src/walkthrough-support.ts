import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FrequencyOracle, OracleEntry, OracleOptions } from "./api.js";

/** CONTRIBUTING.md's "Adding an oracle" code blocks, extracted and loaded (see {@link loadWalkthrough}). */
export interface Walkthrough {
  /** The oracle file's code (block 1), as written in CONTRIBUTING.md. */
  readonly oracleCode: string;
  /** The registry lines (block 2). */
  readonly tableCode: string;
  readonly createDirectExample: (options: OracleOptions) => FrequencyOracle<number>;
  /** The table made of block 2's line(s). */
  readonly table: Readonly<Record<string, OracleEntry>>;
}

/** The ```ts blocks of CONTRIBUTING.md's "Adding an oracle" section, dedented. O(file). */
export function walkthroughBlocks(): string[] {
  const text = readFileSync(new URL("../../../CONTRIBUTING.md", import.meta.url), "utf8");
  const start = text.indexOf("## Adding an oracle");
  const end = text.indexOf("\n## ", start + 1);
  if (start < 0) throw new Error('CONTRIBUTING.md has no "## Adding an oracle" section');
  return [...text.slice(start, end < 0 ? undefined : end).matchAll(/```ts\n([\s\S]*?)\n *```/g)].map((m) => {
    const lines = m[1]!.split("\n");
    const indent = Math.min(...lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)![0].length));
    return `${lines.map((l) => l.slice(indent)).join("\n")}\n`;
  });
}

/**
 * `code` with its package-relative imports (`"./define-oracle.js"`) pointed at this
 * package's `src/` by absolute path, so it runs from a scratch file outside the
 * source tree (where no concurrent `tsc` or `biome` run can see it). Only the
 * import paths change.
 */
export function atPackageSource(code: string): string {
  const source = fileURLToPath(new URL(".", import.meta.url));
  return code.replace(
    /from "\.\/([^"]+)"/g,
    (_, path: string) => `from ${JSON.stringify(join(source, path))}`,
  );
}

/**
 * Run the walk-through as written: block 1 is written to a scratch file (its
 * relative imports resolved to `src/` by {@link atPackageSource}) and imported;
 * block 2's import lines (pointed at that scratch file) and table line(s) become a
 * scratch module exporting `{ <line> }`. Both files are deleted once imported.
 * For tests only.
 */
export async function loadWalkthrough(): Promise<Walkthrough> {
  const [oracleCode, tableCode] = walkthroughBlocks();
  if (oracleCode === undefined || tableCode === undefined)
    throw new Error("CONTRIBUTING.md's walk-through needs its two ```ts blocks");
  const tag = join(tmpdir(), `calm-ldp-walkthrough-${process.pid}-${randomUUID().slice(0, 8)}`);
  const oracleFile = `${tag}-direct-example.ts`;
  const tableFile = `${tag}-table.ts`;
  const lines = tableCode.trimEnd().split("\n");
  const imports = lines
    .filter((l) => l.startsWith("import "))
    .map((l) => l.replace('"./direct-example.js"', JSON.stringify(oracleFile)));
  const entries = lines.filter((l) => !l.startsWith("import ") && l.trim() !== "");
  try {
    writeFileSync(oracleFile, atPackageSource(oracleCode));
    writeFileSync(tableFile, `${imports.join("\n")}\nexport const table = {\n${entries.join("\n")}\n};\n`);
    const oracle = await import(/* @vite-ignore */ oracleFile);
    const { table } = await import(/* @vite-ignore */ tableFile);
    return { oracleCode, tableCode, createDirectExample: oracle.createDirectExample, table };
  } finally {
    rmSync(oracleFile, { force: true });
    rmSync(tableFile, { force: true });
  }
}
