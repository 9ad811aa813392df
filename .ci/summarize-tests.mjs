// Sums the vitest JSON reports of every workspace package into one closing line,
// "tests: N passed, N failed, N skipped", and fails if a package ran no test.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const roots = ["packages", "apps"];
let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const root of roots) {
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!existsSync(join(dir, "package.json"))) continue;
    const report = join(dir, "test-results.json");
    if (!existsSync(report)) {
      missing.push(dir);
      continue;
    }
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed += json.numPassedTests;
    failed += json.numFailedTests;
    skipped += json.numPendingTests + json.numTodoTests;
    console.log(
      `${dir}: ${json.numPassedTests} passed, ${json.numFailedTests} failed, ${json.numPendingTests} skipped`,
    );
  }
}
if (missing.length > 0) console.log(`no test report from: ${missing.join(", ")}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);
