import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seededRng, uniformInt } from "@calm-ldp/random";
import { afterAll, describe, expect, it } from "vitest";
import { parseOptions } from "../cli-kit.js";
import { reproduceCommand } from "../commands/reproduce.js";
import { type CustomFigureDefinition, runCustomFigure } from "./custom-figure.js";
import { CUSTOM_FIGURES } from "./custom-figures.js";
import { FIGURES } from "./figures.js";

/**
 * A small data folder in the shared layout (adult/, nltcs/, movielens/), with
 * synthetic rows in the real formats, so the figures run end to end in seconds
 * without the real data.
 */
function fixtureRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "calm-custom-fig-"));
  const rng = seededRng(11);
  const pick = <T>(items: readonly T[]) => items[uniformInt(rng, items.length)]!;
  const workclass = ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov"];
  const education: [string, number][] = [
    ["Bachelors", 13],
    ["Some-college", 10],
    ["11th", 7],
    ["HS-grad", 9],
    ["Prof-school", 15],
    ["Masters", 14],
    ["Doctorate", 16],
    ["Assoc-voc", 11],
  ];
  const marital = ["Married-civ-spouse", "Divorced", "Never-married", "Widowed"];
  const occupation = [
    "Tech-support",
    "Craft-repair",
    "Sales",
    "Exec-managerial",
    "Prof-specialty",
    "Adm-clerical",
  ];
  const relationship = ["Wife", "Own-child", "Husband", "Not-in-family", "Unmarried"];
  const race = ["White", "Black", "Asian-Pac-Islander"];
  const country = ["United-States", "Mexico", "Canada"];
  const lines: string[] = [];
  for (let i = 0; i < 800; i++) {
    const [edu, eduNum] = pick(education);
    const age = 17 + uniformInt(rng, 60);
    const rich = eduNum >= 13 && age > 30 ? uniformInt(rng, 10) < 7 : uniformInt(rng, 10) < 1;
    lines.push(
      [
        age,
        pick(workclass),
        100000 + uniformInt(rng, 100000),
        edu,
        eduNum,
        pick(marital),
        pick(occupation),
        pick(relationship),
        pick(race),
        pick(["Female", "Male"]),
        pick([0, 0, 0, 5000]),
        pick([0, 0, 1500]),
        20 + uniformInt(rng, 40),
        pick(country),
        rich ? ">50K" : "<=50K",
      ].join(", "),
    );
  }
  mkdirSync(join(root, "adult"));
  writeFileSync(join(root, "adult", "adult.data"), `${lines.join("\n")}\n`);
  mkdirSync(join(root, "nltcs"));
  const nltcs = Array.from({ length: 500 }, () => {
    const first = uniformInt(rng, 2);
    return Array.from({ length: 16 }, (_, j) => (j === 0 || uniformInt(rng, 4) > 0 ? first : 1 - first)).join(
      ",",
    );
  });
  writeFileSync(join(root, "nltcs", "nltcs.csv"), `${nltcs.join("\n")}\n`);
  const ml = join(root, "movielens", "ml-latest-small");
  mkdirSync(ml, { recursive: true });
  const genres = [
    "Action",
    "Adventure",
    "Animation",
    "Children",
    "Comedy",
    "Crime",
    "Documentary",
    "Drama",
    "Fantasy",
    "Horror",
    "Mystery",
    "Romance",
  ];
  const movies = Array.from(
    { length: 60 },
    (_, m) => `${m + 1},Movie ${m + 1} (2000),${genres[m % 12]}|${genres[(m * 5 + 3) % 12]}`,
  );
  writeFileSync(join(ml, "movies.csv"), `movieId,title,genres\n${movies.join("\n")}\n`);
  const ratings: string[] = [];
  for (let u = 1; u <= 150; u++)
    for (let r = 0; r < 12; r++) ratings.push(`${u},${1 + uniformInt(rng, 60)},4.0,964982703`);
  writeFileSync(join(ml, "ratings.csv"), `userId,movieId,rating,timestamp\n${ratings.join("\n")}\n`);
  return root;
}

const root = fixtureRoot();
const out = mkdtempSync(join(tmpdir(), "calm-custom-out-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

async function reproduce(argv: string[], logs: string[] = []) {
  const parsed = parseOptions(reproduceCommand, [...argv, "--data-dir", root, "--out", out]);
  return (await reproduceCommand.run(
    parsed.options,
    { json: true, log: (m) => logs.push(m) },
    parsed.positionals,
  )) as {
    figure: string;
    results: Record<string, unknown>[];
    files: string[];
    settings: Record<string, unknown>;
    reps: number;
  };
}

describe("custom figures registry", () => {
  it("has the analysis figures, with ids distinct from the harness figures", () => {
    const ids = CUSTOM_FIGURES.map((f) => f.id);
    expect(ids).toEqual(["calm-fig6", "cormode-fig7", "cormode-fig8"]);
    for (const id of ids) expect(FIGURES.some((f) => f.id === id)).toBe(false);
    expect(reproduceCommand.summary).toContain("calm-fig6");
  });

  it("runCustomFigure passes --n/--eps only to figures that take them and writes CSV and SVG", async () => {
    const seen: unknown[] = [];
    const figure: CustomFigureDefinition = {
      id: "test-custom",
      paper: "CALM (CCS 2018)",
      title: "t",
      claim: "c",
      reps: 4,
      takes: { n: true, eps: false },
      async run(context) {
        seen.push({ n: context.n, eps: context.eps, reps: context.reps });
        return {
          rows: [{ method: "a", eps: 1, value: 0.5 }],
          specs: [{ mark: "point", data: { values: [{ x: 1, y: 2 }] }, encoding: {} }],
          settings: { k: 1 },
        };
      },
    };
    const logs: string[] = [];
    const result = await runCustomFigure(figure, {
      dataRoot: root,
      out,
      seed: 1,
      quick: true,
      n: [100],
      eps: [2],
      log: (m) => logs.push(m),
    });
    expect(seen).toEqual([{ n: [100], eps: undefined, reps: 3 }]);
    expect(logs.some((m) => m.includes("--eps does not apply"))).toBe(true);
    expect(result.results).toEqual([{ method: "a", eps: 1, value: 0.5 }]);
    expect(readFileSync(join(out, "test-custom.csv"), "utf8")).toBe("method,eps,value\na,1,0.5\n");
    expect(existsSync(join(out, "test-custom.svg"))).toBe(true);
  });
});

describe("reproduce calm-fig6", () => {
  it("prints one row per partition, method, n and eps, including NoNoise and Majority", async () => {
    const result = await reproduce(["calm-fig6", "--n", "3000", "--eps", "1,4", "--reps", "1"]);
    expect(result.figure).toBe("calm-fig6");
    expect(result.reps).toBe(1);
    const methods = ["nonoise", "majority", "calm", "calm-plus", "fc", "am", "ft"];
    expect(result.results).toHaveLength(3 * methods.length * 2);
    for (const row of result.results) {
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining(["method", "partition", "n", "eps", "misclassification"]),
      );
      expect(["binary", "non-binary", "binary-grouped"]).toContain(row.partition);
      expect(row.n).toBe(3000);
      if (row.failures === 0) {
        expect(row.misclassification).toBeGreaterThanOrEqual(0);
        expect(row.misclassification).toBeLessThanOrEqual(1);
      }
    }
    for (const m of methods) expect(result.results.some((r) => r.method === m)).toBe(true);
    expect(result.results.find((r) => r.method === "nonoise")!.label).toBe("NoNoise");
    expect(result.files.map((f) => f.slice(out.length + 1))).toEqual([
      "calm-fig6.json",
      "calm-fig6.csv",
      "calm-fig6.svg",
    ]);
    expect(JSON.parse(readFileSync(join(out, "calm-fig6.json"), "utf8")).results).toHaveLength(42);
    expect(readFileSync(join(out, "calm-fig6.svg"), "utf8")).toContain("<svg");
  });
});

describe("reproduce cormode-fig7 and cormode-fig8", () => {
  it("counts the decisions of the chi-square tests per method and pair", async () => {
    // n = 2^16: large enough that CALM's plan has 2-way views covering every pair
    // (at a few thousand users it picks 1-way views and answers pairs by maximum
    // entropy, which has a bound-based interval without covariance: no noise-aware test).
    const result = await reproduce(["cormode-fig7", "--n", "65536", "--reps", "2"]);
    expect(result.results).toHaveLength(3 * 6);
    for (const row of result.results) {
      expect(row.eps).toBeCloseTo(Math.log(3), 12);
      expect(row.reps).toBe(2);
      expect((row.typeI as number) + (row.typeII as number)).toBeLessThanOrEqual(2);
      expect(row.critical).toBeCloseTo(3.841458820694124, 9);
      // The noise-aware test runs for every method (all three have intervals).
      expect(row.noiseAwareUnavailable).toBe(0);
      expect(row.noiseAwareReject as number).toBeGreaterThanOrEqual(0);
      expect(row.noiseAwareReject as number).toBeLessThanOrEqual(2);
      expect(row.noiseAwarePValue as number).toBeGreaterThan(0);
      expect(row.noiseAwarePValue as number).toBeLessThanOrEqual(1);
    }
    expect(result.settings.d).toBe(9);
  });

  it("says where the noise-aware test cannot run (CALM pairs answered by maximum entropy)", async () => {
    // At 4,000 users CALM's plan has 1-way views: every pair is a maximum-entropy answer.
    const result = await reproduce(["cormode-fig7", "--n", "4000", "--reps", "2"]);
    for (const row of result.results) {
      if (row.method === "calm") {
        expect(row.noiseAwareUnavailable).toBe(2);
        expect(Number.isNaN(row.noiseAwareReject as number)).toBe(true);
      } else expect(row.noiseAwareUnavailable).toBe(0);
    }
  });

  it("scores Chow-Liu trees on both datasets", async () => {
    const result = await reproduce(["cormode-fig8", "--n", "3000", "--eps", "2", "--reps", "1"]);
    expect(result.results).toHaveLength(2 * 4);
    for (const row of result.results) {
      expect(row.mutualInformation).toBeLessThanOrEqual((row.optimum as number) + 1e-12);
      expect(["movielens (d=10)", "nltcs (d=16)"]).toContain(row.dataset);
    }
  });

  it("refuses a non-integer --n", async () => {
    await expect(reproduce(["cormode-fig8", "--n", "1000.5"])).rejects.toThrow(/--n must be integers/);
  });
});
