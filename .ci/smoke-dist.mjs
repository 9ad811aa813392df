// Node-version smoke, part 1: every entry point of every published package's
// build output (dist/) loads on the running Node, as ESM (import) and as CJS
// (require), and exports something. Resolved the way a user's project resolves
// them: from apps/cli, which depends on every published package. Exits 1 on failure.
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const root = new URL("..", import.meta.url).pathname;
const require = createRequire(join(root, "apps", "cli", "package.json"));
let loaded = 0;
const failures = [];
// CJS entry points that require vitest (the contract suites of ./testing) cannot
// load by require() on any Node (vitest is ESM only): listed, not counted as failures.
const vitestOnly = [];
for (const dir of readdirSync(join(root, "packages"))) {
  let pkg;
  try {
    pkg = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8"));
  } catch {
    continue;
  }
  if (pkg.private) continue;
  for (const [subpath, conditions] of Object.entries(pkg.exports ?? {})) {
    if (subpath.endsWith(".json")) continue;
    const name = pkg.name + subpath.slice(1);
    for (const kind of ["import", "require"]) {
      if (!conditions[kind]) continue;
      if (
        kind === "require" &&
        /require\(["']vitest["']\)/.test(readFileSync(require.resolve(name), "utf8"))
      ) {
        vitestOnly.push(name);
        continue;
      }
      try {
        const module =
          kind === "import"
            ? await import(pathToFileURL(require.resolve(name).replace(/\.cjs$/, ".js")).href)
            : require(name);
        if (Object.keys(module).length === 0) throw new Error("exports nothing");
        loaded++;
      } catch (error) {
        failures.push(`${kind} ${name}: ${error instanceof Error ? error.message : error}`);
      }
    }
  }
}
for (const failure of failures) console.log(`FAIL ${failure}`);
if (vitestOnly.length > 0)
  console.log(`import only (their CJS requires vitest, ESM only): ${vitestOnly.join(", ")}`);
console.log(
  `Node ${process.version}: ${loaded} package entry points load from dist/ (ESM and CJS), ${failures.length} fail`,
);
process.exit(failures.length > 0 || loaded === 0 ? 1 : 0);
