import { describe, expect, it } from "vitest";
import { parseOptions, runCommandLine, UsageError } from "../cli-kit.js";
import { auditCommand } from "./audit.js";

const logs: string[] = [];
const run = (argv: string[]) => runCommandLine(auditCommand, argv, { json: true, log: (m) => logs.push(m) });

describe("calm-ldp audit", () => {
  it("prints exactly the documented fields; a correct oracle's bound stays below eps", () => {
    // 20,000 reports per input (the default is 1e6): enough for a bound within ~0.1 of
    // eps for GRR at eps = 1, D = 16, and fast in CI. Seeded so the run repeats.
    const out = run(["--oracle", "grr", "--eps", "1", "--domain", "16", "--samples", "20000", "--seed", "5"]);
    expect(Object.keys(out)).toEqual([
      "oracle",
      "eps",
      "domain",
      "samples",
      "exactWorstLogRatio",
      "empiricalEpsLower",
    ]);
    expect(out).toMatchObject({ oracle: "grr", eps: 1, domain: 16, samples: 20000 });
    expect(Math.abs((out.exactWorstLogRatio as number) - 1)).toBeLessThan(1e-9);
    expect(out.empiricalEpsLower as number).toBeLessThanOrEqual(1);
    expect(out.empiricalEpsLower as number).toBeGreaterThan(0.7);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it("audits every oracle name (seeded)", () => {
    for (const oracle of ["rr", "oue", "sue", "olh", "blh", "hr", "ss", "adaptive"]) {
      const domain = oracle === "rr" ? "2" : "9";
      const out = run([
        "--oracle",
        oracle,
        "--eps",
        "0.7",
        "--domain",
        domain,
        "--samples",
        "5000",
        "--seed",
        "3",
      ]);
      expect(out.empiricalEpsLower as number, oracle).toBeLessThanOrEqual(0.7);
      expect(Math.abs((out.exactWorstLogRatio as number) - 0.7), oracle).toBeLessThan(1e-9);
    }
  });

  it("uses the cryptographic source by default", () => {
    const out = run(["--oracle", "olh", "--eps", "1", "--domain", "8", "--samples", "5000"]);
    expect(logs.at(-1)).toContain("cryptoRng");
    expect(Number.isFinite(out.empiricalEpsLower as number)).toBe(true);
    expect(out.empiricalEpsLower as number).toBeGreaterThanOrEqual(0);
  });

  it("reports null for the exact check when the domain is too large to enumerate", () => {
    const out = run(["--oracle", "oue", "--eps", "1", "--domain", "700", "--samples", "2000", "--seed", "1"]);
    expect(out.exactWorstLogRatio).toBeNull();
    expect(logs.some((line) => line.includes("exact check skipped"))).toBe(true);
  });

  it("rejects bad options with one-line usage errors", () => {
    expect(() => parseOptions(auditCommand, ["--oracle", "nope", "--eps", "1", "--domain", "4"])).toThrow(
      /audit: --oracle must be one of grr, rr, oue/,
    );
    expect(() => parseOptions(auditCommand, ["--oracle", "grr", "--domain", "4"])).toThrow(
      /audit: --eps is required/,
    );
    expect(() => run(["--oracle", "rr", "--eps", "1", "--domain", "4"])).toThrow(UsageError);
    expect(() => run(["--oracle", "rr", "--eps", "1", "--domain", "4"])).toThrow(
      /audit: createRr: domain must be 2/,
    );
    expect(() => run(["--oracle", "grr", "--eps", "1", "--domain", "4", "--pair", "2,2"])).toThrow(
      /audit: --pair must be two different integers in \[0, 4\) \(got 2,2\)/,
    );
  });
});
