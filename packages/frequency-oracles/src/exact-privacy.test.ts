import { describe, expect, it } from "vitest";
import type { PrivacyLaw } from "./api.js";
import { InvalidParameterError } from "./errors.js";
import { exactWorstLogRatio } from "./exact-privacy.js";
import { createOracle, ORACLE_NAMES, oracleEntry } from "./registry.js";
import { createSs } from "./ss.js";

describe("exactWorstLogRatio", () => {
  it("is exactly eps for every built-in oracle at D = 64 (they spend their whole budget)", () => {
    for (const name of ORACLE_NAMES) {
      for (const eps of [0.3, 1, 4]) {
        const oracle = createOracle(name, { eps, domain: oracleEntry(name).fixedDomain ?? 64 });
        expect(Math.abs(exactWorstLogRatio(oracle) - eps), `${name} at eps ${eps}`).toBeLessThan(1e-9);
      }
    }
  });

  it("agrees with a full enumeration of subsets for Subset Selection", () => {
    // D = 7, k = 3: all C(7, 3) = 35 subsets as one categorical law.
    const domain = 7;
    const ss = createSs({ eps: 1.3, domain, k: 3 });
    const law = ss.privacyLaw();
    if (law.kind !== "membership") throw new Error("expected a membership law");
    const subsets: number[] = [];
    for (let mask = 0; mask < 1 << domain; mask++) {
      let bits = 0;
      for (let b = 0; b < domain; b++) bits += (mask >>> b) & 1;
      if (bits === 3) subsets.push(mask);
    }
    const categorical: PrivacyLaw = {
      kind: "categorical",
      outputs: subsets.length,
      probabilities(value, out) {
        subsets.forEach((mask, i) => {
          out[i] = Math.exp((mask >>> value) & 1 ? law.logProbabilityIfMember : law.logProbabilityIfNot);
        });
        return out;
      },
    };
    const enumerated = exactWorstLogRatio({ ...ss, privacyLaw: () => categorical });
    expect(enumerated).toBeCloseTo(exactWorstLogRatio(ss), 12);
    expect(enumerated).toBeCloseTo(1.3, 12);
    // Pr[value in S] from the law is SS's p.
    const member = subsets.filter((mask) => mask & 1).length * Math.exp(law.logProbabilityIfMember);
    expect(member).toBeCloseTo(ss.p, 12);
  });

  it("reports Infinity when an output is impossible under one input", () => {
    const deterministic: PrivacyLaw = {
      kind: "categorical",
      outputs: 2,
      probabilities: (value, out) => {
        out.fill(0);
        out[value] = 1;
        return out;
      },
    };
    const oracle = { ...createOracle("grr", { eps: 1, domain: 2 }), privacyLaw: () => deterministic };
    expect(exactWorstLogRatio(oracle)).toBe(Number.POSITIVE_INFINITY);
  });

  it("rejects laws that do not sum to one and enumerations that are too large", () => {
    const broken: PrivacyLaw = { kind: "categorical", outputs: 2, probabilities: (_v, out) => out.fill(0.6) };
    const oracle = { ...createOracle("grr", { eps: 1, domain: 2 }), privacyLaw: () => broken };
    expect(() => exactWorstLogRatio(oracle)).toThrow(
      /exactWorstLogRatio: the output law of input 0 must sum to 1 \(got 1\.2\)/,
    );
    const oue = createOracle("oue", { eps: 1, domain: 2000 });
    expect(() => exactWorstLogRatio(oue, { maxWork: 1e6 })).toThrow(InvalidParameterError);
  });

  it("rejects a law entry outside [0, 1], naming the output or bit and the input", () => {
    const grr = createOracle("grr", { eps: 1, domain: 3 });
    const categorical: PrivacyLaw = {
      kind: "categorical",
      outputs: 3,
      probabilities: (v, out) => out.fill(0.5).fill(v === 2 ? -0.1 : 0, 1, 2),
    };
    expect(() => exactWorstLogRatio({ ...grr, privacyLaw: () => categorical })).toThrow(
      /exactWorstLogRatio: Pr\[output 1 \| input 2\] must be in \[0, 1\] \(got -0\.1\)/,
    );
    const bits: PrivacyLaw = {
      kind: "independent-bits",
      bits: 3,
      probabilities: (v, out) => out.fill(0.5).fill(v === 1 ? 1.5 : 0.5, 2),
    };
    expect(() => exactWorstLogRatio({ ...grr, privacyLaw: () => bits })).toThrow(
      /exactWorstLogRatio: Pr\[bit 2 = 1 \| input 1\] must be in \[0, 1\] \(got 1\.5\)/,
    );
  });
});
