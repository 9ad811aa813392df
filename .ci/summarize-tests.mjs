// Sums the vitest JSON reports of every workspace package into one closing line,
// "tests: N passed, N failed, N skipped", and fails if a package ran no test.
// With --failures, prints only what failed: each failed test (or test file that
// did not load) with the first lines of its message, so the end of a CI log names
// the failure even when only its last lines are kept.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const failuresOnly = process.argv.includes("--failures");
const roots = ["packages", "apps"];
let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
const failures = [];
/** The first `lines` non-empty lines of a failure message, indented. */
const colour = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");
const head = (message, lines = 6) =>
  String(message ?? "")
    .replace(colour, "")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(0, lines)
    .map((line) => `      ${line}`)
    .join("\n");
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
    for (const file of json.testResults ?? []) {
      const where = relative(process.cwd(), file.name);
      const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const test of failedTests) {
        failures.push(`  ${where} > ${test.fullName}\n${head(test.failureMessages?.join("\n"))}`);
      }
      if (file.status === "failed" && failedTests.length === 0) {
        failures.push(`  ${where} (the file failed outside its tests)\n${head(file.message)}`);
      }
    }
    if (!failuresOnly) {
      console.log(
        `${dir}: ${json.numPassedTests} passed, ${json.numFailedTests} failed, ${json.numPendingTests} skipped`,
      );
    }
  }
}
if (failuresOnly) {
  if (missing.length > 0) console.log(`  no test report from: ${missing.join(", ")}`);
  if (failures.length > 0) console.log(failures.join("\n"));
  process.exit(0);
}
if (missing.length > 0) console.log(`no test report from: ${missing.join(", ")}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);
