#!/usr/bin/env node
/**
 * The house rules' size limits, measured: every source file over 500 lines and
 * every function over 120 lines in packages/ * /src and apps/ * /src (tests,
 * generated data and benches aside: `*.test.ts`, `test-support*`, files whose
 * first lines say they are generated, and bench/, test/ folders, which lie
 * outside src). Functions are found by TypeScript's parser (declarations,
 * methods, accessors, constructors, function expressions and arrow functions);
 * a function's length is its lines from the declaration to its closing brace,
 * nested functions included. Prints one line per finding, largest first, then
 * a count; exits 0 (a report, not a gate) unless `--check`, which exits 1 when
 * anything is listed.
 * Usage: `node scripts/house-report.mjs [--check] [--max-file 500] [--max-function 120]`.
 * Cost: one parse per source file (about a second for the whole tree).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const maxFile = option("max-file", 500);
const maxFunction = option("max-function", 120);

/** Every .ts/.tsx/.mjs file below dir, recursively (node_modules and dist skipped). */
function sources(dir) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (/\.(ts|tsx|mts|mjs)$/.test(name) && !/\.d\.ts$/.test(name)) found.push(path);
  }
  return found;
}

const isTestOrSupport = (path) => /\.test\.tsx?$|(^|\/)test-support[^/]*$|\.bench\.ts$/.test(path);
const isGenerated = (text) => /generated|do not edit/i.test(text.split("\n").slice(0, 5).join("\n"));

const files = [];
for (const group of ["packages", "apps"]) {
  for (const name of readdirSync(join(root, group))) {
    const src = join(root, group, name, "src");
    try {
      if (statSync(src).isDirectory()) files.push(...sources(src));
    } catch {
      // a package without src
    }
  }
}

const findings = [];
for (const path of files) {
  if (isTestOrSupport(path)) continue;
  const text = readFileSync(path, "utf8");
  if (isGenerated(text)) continue;
  const where = relative(root, path);
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > maxFile) findings.push({ lines, text: `file     ${lines} lines  ${where}` });
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = end - start + 1;
      if (length > maxFunction) {
        const name = functionName(node);
        findings.push({ lines: length, text: `function ${length} lines  ${where}:${start + 1} ${name}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** A readable name: the declared one, else the variable or property it is assigned to. */
function functionName(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  return "(anonymous)";
}

findings.sort((a, b) => b.lines - a.lines);
for (const finding of findings) console.log(finding.text);
console.log(
  `${findings.length} finding(s): files over ${maxFile} lines, functions over ${maxFunction} lines (tests, generated data and benches aside)`,
);
if (args.includes("--check") && findings.length > 0) process.exit(1);
