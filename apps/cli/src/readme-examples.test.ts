import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";

/**
 * Every package's README has a runnable usage example: its first ```ts block is
 * written to a temporary module and imported (with `@calm-ldp/*` resolved to the
 * sources, as in every test). An example that throws, or a package without one,
 * fails here.
 */
const packagesDir = fileURLToPath(new URL("../../../packages", import.meta.url));
const packages = readdirSync(packagesDir).filter((name) =>
  existsSync(join(packagesDir, name, "package.json")),
);

afterEach(() => vi.restoreAllMocks());

describe("README usage examples run", () => {
  for (const name of packages) {
    it(`@calm-ldp/${name}`, async () => {
      const readme = join(packagesDir, name, "README.md");
      expect(existsSync(readme), `${readme} is missing`).toBe(true);
      const code = /```ts\n([\s\S]*?)```/.exec(readFileSync(readme, "utf8"))?.[1];
      expect(code, `${readme} has no \`\`\`ts example`).toBeDefined();
      const file = join(tmpdir(), `calm-ldp-readme-${name}-${process.pid}.ts`);
      writeFileSync(file, code!);
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      try {
        await import(/* @vite-ignore */ file);
      } finally {
        rmSync(file, { force: true });
      }
      expect(log).toHaveBeenCalled();
    }, 120_000);
  }
});
