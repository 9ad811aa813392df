import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

// The README's usage example must run: extract its first ```ts block and import it.
it("README usage example runs", async () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  const file = join(tmpdir(), `calm-ldp-fo-readme-${process.pid}.ts`);
  writeFileSync(file, code!);
  const lines: unknown[][] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => lines.push(args);
  try {
    await import(/* @vite-ignore */ file);
  } finally {
    console.log = original;
    rmSync(file, { force: true });
  }
  expect(lines[0]![0]).toBe("oue");
  expect(lines).toHaveLength(3);
  const [exact, lower] = lines[2] as number[];
  expect(Math.abs(exact! - 1)).toBeLessThan(1e-9);
  // The example audits with the cryptographic source (unseeded), so only the type is checked here;
  // the audit's statistics are tested, seeded, in audit.test.ts.
  expect(Number.isFinite(lower) && lower! >= 0).toBe(true);
});
