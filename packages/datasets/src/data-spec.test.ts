import { describe, expect, it } from "vitest";
import { formatDataSpec, parseDataSpec } from "./data-spec.js";
import { DataSpecError } from "./errors.js";

describe("parseDataSpec", () => {
  it("parses every kind", () => {
    expect(parseDataSpec("synthetic:iid?p=0.3")).toEqual({ kind: "synthetic-iid", p: [0.3] });
    expect(parseDataSpec("synthetic:iid")).toEqual({ kind: "synthetic-iid" });
    expect(parseDataSpec("synthetic:iid?probs=0.2,0.3,0.5")).toEqual({
      kind: "synthetic-iid",
      cardinality: 3,
      distribution: [0.2, 0.3, 0.5],
    });
    expect(parseDataSpec("synthetic:bn?strength=0.8&parents=3&cardinality=4&seed=7")).toEqual({
      kind: "synthetic-bn",
      strength: 0.8,
      parents: 3,
      cardinality: 4,
      base: "random",
      seed: 7,
    });
    expect(parseDataSpec("synthetic:bn")).toEqual({
      kind: "synthetic-bn",
      strength: 0.5,
      parents: 2,
      base: "random",
    });
    expect(parseDataSpec("adult:/data/adult?partition=binary&attributes=age,sex")).toEqual({
      kind: "adult",
      path: "/data/adult",
      partition: "binary",
      attributes: ["age", "sex"],
    });
    expect(parseDataSpec("nltcs:./n.csv")).toEqual({ kind: "nltcs", path: "./n.csv" });
    expect(parseDataSpec("transactions:C:/x/retail.dat?format=spmf")).toEqual({
      kind: "transactions",
      path: "C:/x/retail.dat",
      format: "spmf",
    });
    expect(parseDataSpec("msnbc:m.seq.gz")).toEqual({ kind: "msnbc", path: "m.seq.gz" });
    expect(parseDataSpec("csv:d.csv?schema=s.json&header=false&delimiter=tab&maxCategories=50")).toEqual({
      kind: "csv",
      path: "d.csv",
      schema: "s.json",
      header: false,
      delimiter: "\t",
      maxCategories: 50,
    });
  });

  it("rejects bad specs with a DataSpecError naming the problem and the spec", () => {
    const cases: [string, RegExp][] = [
      ["adult", /expected <kind>:<\.\.\.>/],
      ["kosarak:x.dat", /unknown kind "kosarak"/],
      ["synthetic:gauss", /must be "synthetic:iid" or "synthetic:bn"/],
      ["synthetic:iid?p=1.5", /p must be a comma-separated list of probabilities in \[0, 1\] \(got "1\.5"\)/],
      ["synthetic:iid?p=abc", /p must be/],
      ["synthetic:iid?q=1", /unknown parameter "q" for synthetic-iid \(allowed: p, cardinality, probs\)/],
      ["synthetic:iid?p=0.3&cardinality=3", /needs cardinality 2/],
      ["synthetic:iid?probs=0.5,0.6", /probs must sum to 1/],
      ["synthetic:bn?strength=2", /strength must be a number in \[0, 1\] \(got "2"\)/],
      ["synthetic:bn?parents=1.5", /parents must be an integer >= 0/],
      ["synthetic:bn?cardinality=1", /cardinality must be an integer in \[2, 65536\]/],
      ["synthetic:bn?seed=1&seed=2", /parameter "seed" given twice/],
      ["synthetic:bn?strength=", /strength must be a number/],
      ["adult:", /adult: expected a path/],
      ["adult:x?partition=ternary", /partition must be one of binary, capped/],
      ["nltcs:x?d=3", /unknown parameter "d" for nltcs \(allowed: none\)/],
      ["transactions:x?format=arff", /format must be one of auto, fimi, spmf/],
      ["csv:x?delimiter=ab", /delimiter must be one character or "tab"/],
    ];
    for (const [spec, message] of cases) {
      expect(() => parseDataSpec(spec), spec).toThrow(DataSpecError);
      expect(() => parseDataSpec(spec), spec).toThrow(message);
    }
    expect(() => parseDataSpec("kosarak:x")).toThrow('(in "kosarak:x")');
  });

  it("formats canonically and round-trips", () => {
    const specs = [
      "synthetic:iid?p=0.3",
      "synthetic:iid?p=0.1,0.2",
      "synthetic:iid?cardinality=3&probs=0.2,0.3,0.5",
      "synthetic:bn?strength=0.25&parents=1&cardinality=3&base=uniform&seed=9",
      "adult:/a b/adult?partition=binary&attributes=age,income",
      "transactions:r.dat?format=fimi",
      "csv:d.csv?schema=s.json&header=false&delimiter=tab&maxCategories=9",
      "csv:d.csv?delimiter=,",
      "msnbc:m.seq",
    ];
    for (const text of specs) {
      const spec = parseDataSpec(text);
      expect(formatDataSpec(spec)).toBe(text);
      expect(parseDataSpec(formatDataSpec(spec))).toEqual(spec);
    }
    expect(formatDataSpec(parseDataSpec("synthetic:bn"))).toBe(
      "synthetic:bn?strength=0.5&parents=2&base=random",
    );
  });
});
