import { execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "./cli.js";
import { commands } from "./commands/index.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    err.push(String(chunk));
    return true;
  });
  return { out, err };
}

afterEach(() => vi.restoreAllMocks());

describe("calm-ldp CLI", () => {
  it("version --json prints exactly one JSON document", async () => {
    const { out } = capture();
    expect(await main(["version", "--json"])).toBe(0);
    expect(out).toHaveLength(1);
    const doc = JSON.parse(out[0]!);
    expect(doc.name).toBe("calm-ldp");
    expect(doc.packages["@calm-ldp/random"]).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("runs when started through a symlink, as npm's bin links start it", () => {
    const link = join(mkdtempSync(join(tmpdir(), "calm-bin-")), "calm-ldp");
    symlinkSync(fileURLToPath(new URL("./cli.ts", import.meta.url)), link);
    const out = execFileSync(process.execPath, ["--import", "tsx", link, "version", "--json"], {
      encoding: "utf8",
    });
    const doc = JSON.parse(out);
    expect(doc.name).toBe("calm-ldp");
    expect(doc.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Object.keys(doc.packages)).toContain("@calm-ldp/calm-core");
  });

  it("rng-bench --json reports the three throughput figures", async () => {
    const { out } = capture();
    expect(await main(["rng-bench", "--words", "65536", "--draws", "1000", "--json"])).toBe(0);
    const doc = JSON.parse(out.join(""));
    for (const key of ["cryptoUint32PerSecond", "seededUint32PerSecond", "binomialPerSecond"]) {
      expect(doc[key]).toBeGreaterThan(0);
    }
  });

  it("unknown commands and options exit non-zero with a one-line error naming them", async () => {
    const { err } = capture();
    expect(await main(["nope"])).toBe(2);
    expect(await main(["version", "--bogus"])).toBe(2);
    expect(err.join("")).toContain('unknown command "nope"');
    expect(err.join("")).toContain("unknown option --bogus");
    for (const line of err) expect(line.trim().split("\n")).toHaveLength(1);
  });

  it("every command has --help; each listed name loads the command of that name", async () => {
    const { out } = capture();
    for (const entry of commands) {
      expect((await entry.load()).name).toBe(entry.name);
      out.length = 0;
      expect(await main([entry.name, "--help"])).toBe(0);
      expect(out.join("")).toContain(`calm-ldp ${entry.name}`);
    }
    out.length = 0;
    expect(await main(["--help"])).toBe(0);
    for (const entry of commands) expect(out.join("")).toContain(`  ${entry.name} `);
  });
});
