// `pnpm new-oracle <name>` (from the repository root): the skeleton of a new oracle, as
// CONTRIBUTING.md "Adding an oracle" describes it. Writes src/<name>.ts (the walk-through's
// direct encoding renamed: a correct oracle to start from), adds its import and its line to
// ORACLE_TABLE in src/registry.ts and writes .changeset/frequency-oracles-<name>.md. The
// README and docs/algorithms.md rows stay yours to write (src/registry.test.ts fails until
// they exist). Refuses a name that is not [a-z][a-z0-9-]{0,31} or already registered.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { walkthroughBlocks } from "../src/walkthrough-support.js";

/** The files `new-oracle` writes, as path -> content (paths relative to the repository root). */
export function newOracleFiles(name: string, registry: string): Map<string, string> {
  if (!/^[a-z][a-z0-9-]{0,31}$/.test(name))
    throw new Error(`new-oracle: name must match [a-z][a-z0-9-]{0,31} (got ${name})`);
  const camel = name.replace(/(^|-)([a-z0-9])/g, (_, _dash, c: string) => c.toUpperCase());
  const factory = `create${camel}`;
  if (registry.includes(`"${name}":`) || new RegExp(`\\n  ${name}:`).test(registry))
    throw new Error(`new-oracle: ${name} is already in ORACLE_TABLE`);
  const [oracle] = walkthroughBlocks();
  const code = oracle!
    .replaceAll("createDirectExample", factory)
    .replaceAll('"direct-example"', `"${name}"`)
    .replace(
      "Direct encoding (GRR), the CONTRIBUTING walk-through",
      `${name}: direct encoding to start from (replace)`,
    );
  const end = "} as const satisfies Record<string, OracleEntry>);";
  if (!registry.includes(end))
    throw new Error("new-oracle: ORACLE_TABLE's closing line not found in registry.ts");
  const imports = registry.split("\n").filter((l) => l.startsWith("import "));
  const sorted = [...imports, `import { ${factory} } from "./${name}.js";`].sort((a, b) =>
    a.slice(a.indexOf(" from ")).localeCompare(b.slice(b.indexOf(" from "))),
  );
  const withLine = registry.replace(end, `  "${name}": { create: ${factory} },\n${end}`);
  const body = withLine
    .split("\n")
    .filter((l) => !l.startsWith("import "))
    .join("\n");
  return new Map([
    [`packages/frequency-oracles/src/${name}.ts`, code],
    ["packages/frequency-oracles/src/registry.ts", `${sorted.join("\n")}${body}`],
    [
      `.changeset/frequency-oracles-${name}.md`,
      `---\n"@calm-ldp/frequency-oracles": minor\n---\nNew oracle \`${name}\` (\`createOracle("${name}", { eps, domain })\`): describe it for users.\n`,
    ],
  ]);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const name = process.argv[2] ?? "";
  const registryPath = `${root}packages/frequency-oracles/src/registry.ts`;
  const files = newOracleFiles(name, readFileSync(registryPath, "utf8"));
  const oraclePath = `packages/frequency-oracles/src/${name}.ts`;
  if (existsSync(root + oraclePath)) throw new Error(`new-oracle: ${oraclePath} exists`);
  for (const [path, content] of files) {
    writeFileSync(root + path, content);
    console.log(`wrote ${path}`);
  }
  console.log(
    "next: run its contract (cd packages/frequency-oracles && npx vitest run src/contract.test.ts -t " +
      `${name}), add its rows to the README's oracle table and docs/algorithms.md, pnpm lint`,
  );
}
