import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { OracleCore } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { InvalidParameterError, MalformedReportError } from "./errors.js";
import { loadWalkthrough } from "./walkthrough-support.js";

// The walk-through oracle of CONTRIBUTING.md, extracted from it (its contract runs in walkthrough.test.ts).
const { createDirectExample } = await loadWalkthrough();

describe("defineOracle", () => {
  const base = (): OracleCore<number> => {
    const oracle = createDirectExample({ eps: 1, domain: 4 });
    return {
      id: "ok",
      mechanism: "ok",
      eps: 1,
      domain: 4,
      p: oracle.p,
      q: oracle.q,
      stride: 1,
      perturbInto: () => {},
      toWords: () => {},
      fromWords: () => 0,
      checkWords: () => undefined,
      supportsAt: () => false,
      privacyLaw: () => oracle.privacyLaw(),
    };
  };

  it("validates the core, naming the violated condition", () => {
    expect(() => defineOracle({ ...base(), id: "Bad Id" })).toThrow(
      /defineOracle: id must be 1\.\.32 characters of \[a-z0-9-\] \(got "Bad Id"\)/,
    );
    expect(() => defineOracle({ ...base(), p: 0.1, q: 0.2 })).toThrow(
      /p and q must be probabilities with p > q/,
    );
    expect(() => defineOracle({ ...base(), stride: 0 })).toThrow(InvalidParameterError);
    expect(() => defineOracle({ ...base(), eps: 0 })).toThrow(
      /defineOracle: eps must be a finite number in \(0, 20\] \(got 0\)/,
    );
    expect(() => defineOracle({ ...base(), simulateCounts: () => {} })).toThrow(
      /must declare its simulation law/,
    );
    expect(() => defineOracle({ ...base(), parameters: { g: Number.NaN } })).toThrow(InvalidParameterError);
  });

  it("fills in the defaults: mechanism = id, stride 1, the one-word codec", () => {
    const oracle = createDirectExample({ eps: 1, domain: 4 });
    expect(oracle.mechanism).toBe("direct-example");
    expect(oracle.stride).toBe(1);
    expect(oracle.decode(oracle.encode(3))).toBe(3);
    expect(() => oracle.encode(2.5 as never)).toThrow(MalformedReportError);
    expect(() => oracle.encode("1" as never)).toThrow(
      /direct-example\.toWords: a direct-example report is an integer in \[0, 4\)/,
    );
    expect(() => oracle.encode(4)).toThrow(/reported value 4 is not in \[0, 4\)/);
    const { toWords, fromWords, checkWords, mechanism, stride, ...bare } = base();
    const eight = defineOracle({ ...bare, outputs: 8 });
    expect(() => eight.encode(7)).not.toThrow();
    expect(() => eight.encode(8)).toThrow(/reported value 8 is not in \[0, 8\)/);
    expect(() => defineOracle({ ...bare, toWords })).toThrow(
      /give all of toWords, fromWords and checkWords, or none/,
    );
    expect(() => defineOracle({ ...bare, stride: 2 })).toThrow(/one-word codec .* needs stride 1/);
    expect(() => defineOracle({ ...bare, outputs: 0 })).toThrow(/outputs must be an integer in \[1, 2\^32\]/);
    // A core that gives its own codec keeps it.
    const own = defineOracle({ ...base(), fromWords: () => 42 });
    expect(own.decode(own.encode(1))).toBe(42);
  });

  it("fingerprints the parameter text", () => {
    const oracle = defineOracle({ ...base(), parameters: { zeta: 2, alpha: 1 } });
    expect(oracle.parameterText).toBe("ok/ok/D=4/eps=1/alpha=1/zeta=2");
    expect(oracle.fingerprint).not.toBe(defineOracle(base()).fingerprint);
    expect(Object.isFrozen(oracle)).toBe(true);
  });

  it("rejects reports of the wrong shape before counting", () => {
    const oracle = createDirectExample({ eps: 1, domain: 4 });
    const aggregator = oracle.createAggregator();
    expect(() => aggregator.add(-1)).toThrow(MalformedReportError);
    expect(() => aggregator.add(4)).toThrow(
      /direct-example\.add: reported value 4 is not in \[0, 4\); nothing was counted/,
    );
    const batch = oracle.perturbBatch([0, 1, 2, 3], seededRng(1));
    const corrupt = { ...batch, words: batch.words.slice() };
    corrupt.words[2] = 9;
    expect(() => aggregator.addBatch(corrupt)).toThrow(
      /report 2 of the batch: reported value 9 is not in \[0, 4\); nothing was counted/,
    );
    expect(() => aggregator.addBatch({ ...batch, count: 5 })).toThrow(/needs 5 words/);
    expect(() => aggregator.addCounts([1, 2, 3], 5)).toThrow(InvalidParameterError);
    expect(() => aggregator.addCounts([1, 2, 3, 6], 5)).toThrow(
      /supportCounts\[3\] must be an integer in \[0, reports = 5\]/,
    );
    expect(aggregator.reports).toBe(0);
    expect(() => aggregator.estimate()).toThrow(/estimate: reports must be a finite number > 0 \(got 0\)/);
  });
});
