// Time of the oracle contract suite per oracle: runs vitest on the given test files
// (default: the contract of every registered oracle, the CONTRIBUTING walk-through and
// the broken-oracle tests) with its JSON reporter, and prints per top-level suite the
// sum of its tests' durations (one worker runs a file's tests one after another, so the
// sum is that file's time in that suite) and per check the time over all oracles.
//
//   npx tsx bench/contract-time.ts [test files...]
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { printTable, runtime } from "@calm-ldp/bench-support";

interface AssertionResult {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  readonly duration?: number;
  readonly status: string;
}

const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : ["src/contract.test.ts", "src/walkthrough.test.ts", "src/broken-oracles.test.ts"];
const output = join(tmpdir(), `calm-ldp-contract-time-${process.pid}.json`);
const started = performance.now();
// /usr/bin/time reports the CPU time of vitest and its workers (less sensitive to a shared machine than wall time).
const run = spawnSync(
  "/usr/bin/time",
  ["-f", "cpu %U %S", "npx", "vitest", "run", ...files, "--reporter=json", `--outputFile=${output}`],
  { cwd: new URL("..", import.meta.url), encoding: "utf8" },
);
const cpu = /cpu ([\d.]+) ([\d.]+)/.exec(run.stderr ?? "");
const wall = (performance.now() - started) / 1000;
const report = JSON.parse(readFileSync(output, "utf8")) as {
  testResults: { name: string; assertionResults: AssertionResult[] }[];
};
rmSync(output, { force: true });

const bySuite = new Map<string, { ms: number; tests: number; failed: number }>();
const byCheck = new Map<string, number>();
for (const file of report.testResults) {
  for (const test of file.assertionResults) {
    const suite = test.ancestorTitles[0] ?? file.name;
    const entry = bySuite.get(suite) ?? { ms: 0, tests: 0, failed: 0 };
    entry.ms += test.duration ?? 0;
    entry.tests += 1;
    if (test.status !== "passed") entry.failed += 1;
    bySuite.set(suite, entry);
    if (suite.startsWith("frequency-oracle contract"))
      byCheck.set(test.title, (byCheck.get(test.title) ?? 0) + (test.duration ?? 0));
  }
}
console.log(`oracle contract time (${runtime()}; vitest ${files.join(" ")}; exit ${run.status})`);
printTable(
  ["suite", "tests", "failed", "seconds"],
  [...bySuite].map(([suite, { ms, tests, failed }]) => [
    suite,
    String(tests),
    String(failed),
    (ms / 1000).toFixed(2),
  ]),
);
console.log("");
printTable(
  ["check (all contract suites)", "seconds"],
  [...byCheck].map(([check, ms]) => [check, (ms / 1000).toFixed(2)]),
);
const total = [...bySuite.values()].reduce((s, e) => s + e.ms, 0) / 1000;
const cpuSeconds = cpu === null ? "n/a" : (Number(cpu[1]) + Number(cpu[2])).toFixed(1);
console.log(
  `\nsum of test durations ${total.toFixed(1)} s; wall ${wall.toFixed(1)} s; CPU (user + system, vitest and workers) ${cpuSeconds} s`,
);
