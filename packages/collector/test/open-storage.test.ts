import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, posix } from "node:path";
import { CannotRunError } from "@calm-ldp/errors";
import { describe, expect, it } from "vitest";
import { openStorage } from "../src/index.js";
import { loadBackend } from "../src/open-storage.js";
import { packageDir, withTempDir } from "./support.js";

// The main entry imports no database driver; openStorage loads the backend a
// location names, and a backend whose driver is not installed is a CannotRunError
// that names the package to install.
describe("openStorage and the backends' optional drivers", () => {
  it("the main entry's modules import no database driver", () => {
    const index = readFileSync(join(packageDir, "src", "index.ts"), "utf8");
    const modules = [...index.matchAll(/from "\.\/([\w/-]+)\.js"/g)].map((m) => m[1]!);
    expect(modules.length).toBeGreaterThan(10);
    // Follow the main entry's static imports inside the package.
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const text = readFileSync(join(packageDir, "src", `${name}.ts`), "utf8");
      for (const m of text.matchAll(/^(?:import|export)[^;]*? from "([^"]+)";/gms)) {
        const target = m[1]!;
        expect(
          ["pg", "@duckdb/node-api", "@clickhouse/client"],
          `${name}.ts imports ${target}`,
        ).not.toContain(target);
        // Relative imports resolve against the importing module's folder (src/tokens/*, ...).
        if (/^\.\.?\//.test(target) && !/^import type/.test(m[0]))
          visit(posix.normalize(posix.join(posix.dirname(name), target)).slice(0, -3));
      }
    };
    for (const name of modules) visit(name);
    expect([...seen].filter((name) => /^storage\/(duckdb|postgres|clickhouse)\//.test(name))).toEqual([]);
    expect(
      readdirSync(join(packageDir, "src")).filter((f) => /^(duckdb|postgres|clickhouse)\.ts$/.test(f)),
    ).toHaveLength(3);
  });

  it("opens the DuckDB backend the location names, loaded on demand", async () => {
    await withTempDir(async (dir) => {
      const storage = await openStorage({ duckdb: join(dir, "a.duckdb") });
      expect(storage.backend).toBe("duckdb");
      await storage.close();
    });
  });

  it("a missing driver (Node's ESM loader) is a CannotRunError naming the package to install", () => {
    const out = execFileSync(
      process.execPath,
      ["--import", "tsx", join(packageDir, "test", "fixtures", "load-absent-backend.ts")],
      { cwd: packageDir, encoding: "utf8" },
    );
    const error = JSON.parse(out) as { name: string; message: string };
    expect(error.name).toBe("CannotRunError");
    expect(error.message).toMatch(/PostgreSQL storage needs its database driver "calm-ldp-absent-driver"/);
    expect(error.message).toMatch(/npm install calm-ldp-absent-driver\)$/);
  });

  it("a missing driver (CommonJS require) is a CannotRunError too, keeping Node's error as the cause", async () => {
    const require = createRequire(import.meta.url);
    const attempt = loadBackend("DuckDB", "calm-ldp-absent-driver", async () =>
      require("calm-ldp-absent-driver"),
    );
    await expect(attempt).rejects.toBeInstanceOf(CannotRunError);
    await expect(attempt).rejects.toThrow(
      /DuckDB storage needs its database driver "calm-ldp-absent-driver"/,
    );
    await expect(attempt).rejects.toHaveProperty("cause.code", "MODULE_NOT_FOUND");
  });

  it("other failures pass through unchanged: another missing module, or any other error", async () => {
    const require = createRequire(import.meta.url);
    const other = loadBackend("DuckDB", "@duckdb/node-api", async () =>
      require("calm-ldp-some-other-module"),
    );
    await expect(other).rejects.toHaveProperty("code", "MODULE_NOT_FOUND");
    await expect(other).rejects.not.toBeInstanceOf(CannotRunError);
    const broken = new TypeError("the backend module threw while loading");
    await expect(
      loadBackend("DuckDB", "@duckdb/node-api", async () => {
        throw broken;
      }),
    ).rejects.toBe(broken);
  });
});
