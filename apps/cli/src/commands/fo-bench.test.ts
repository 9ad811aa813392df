import { describe, expect, it } from "vitest";
import { parseOptions, runCommandLine } from "../cli-kit.js";
import { foBenchCommand } from "./fo-bench.js";

// The per-user path always runs on cryptoRng (that is what fo-bench times), so these
// runs cannot be seeded; every tolerance is 6 sd or more (false alarm < 1e-7 per run).
const run = (argv: string[]) => runCommandLine(foBenchCommand, argv);

describe("calm-ldp fo-bench", () => {
  it("prints exactly the documented fields with errors consistent with the oracle's variance", () => {
    const out = run(["--oracle", "oue", "--n", "50000", "--domain", "16", "--eps", "1", "--repeats", "1"]);
    expect(Object.keys(out)).toEqual([
      "oracle",
      "n",
      "domain",
      "eps",
      "path",
      "seconds",
      "reportsPerSecond",
      "maxAbsError",
      "l1Error",
    ]);
    expect(out).toMatchObject({ oracle: "oue", n: 50000, domain: 16, eps: 1, path: "per-user" });
    expect(out.seconds as number).toBeGreaterThan(0);
    expect(out.reportsPerSecond as number).toBeCloseTo(50000 / (out.seconds as number), 6);
    // OUE's sd at n = 5e4, eps = 1 is ~0.0086 per cell: the max over 16 cells stays
    // below 6 sd unless the estimate is broken; the L1 error below 16 x 4 sd.
    expect(out.maxAbsError as number).toBeLessThan(6 * 0.0086);
    expect(out.l1Error as number).toBeLessThan(16 * 4 * 0.0086);
    expect(out.l1Error as number).toBeGreaterThan(0);
  });

  it("runs every oracle on both paths", () => {
    for (const oracle of ["grr", "rr", "sue", "olh", "blh", "hr", "ss", "adaptive"]) {
      for (const path of ["per-user", "simulated"]) {
        const domain = oracle === "rr" ? "2" : "12";
        const out = run([
          "--oracle",
          oracle,
          "--n",
          "20000",
          "--domain",
          domain,
          "--path",
          path,
          "--repeats",
          "1",
        ]);
        expect(out.path).toBe(path);
        // Generous: 8 sd of the noisiest oracle here (BLH/HR at eps = 1, n = 2e4: sd ~ 0.016).
        expect(out.maxAbsError as number, `${oracle} ${path}`).toBeLessThan(8 * 0.016);
      }
    }
  });

  it("rejects bad options", () => {
    expect(() => parseOptions(foBenchCommand, ["--oracle", "grr", "--path", "batch"])).toThrow(
      /fo-bench: --path must be one of per-user, simulated/,
    );
    expect(() => parseOptions(foBenchCommand, ["--path", "simulated"])).toThrow(
      /fo-bench: --oracle is required/,
    );
    expect(() => run(["--oracle", "rr", "--domain", "3"])).toThrow(/fo-bench: createRr: domain must be 2/);
  });
});
