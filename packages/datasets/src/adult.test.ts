import { afterAll, describe, expect, it } from "vitest";
import { ADULT_ATTRIBUTES, ADULT_CLASSIFICATION_ATTRIBUTES, parseAdult } from "./adult.js";
import { MalformedDataError } from "./errors.js";
import { loadAdult } from "./node/load-adult.js";
import { columnSums, realFile, tempDir } from "./test-support.js";

const TRAIN = `39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K
38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K
53, Private, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, United-States, <=50K
54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, Asian-Pac-Islander, Male, 0, 0, 60, South, >50K
28, Private, 338409, Bachelors, 13, Married-civ-spouse, Prof-specialty, Wife, Black, Female, 0, 0, 40, Cuba, <=50K
37, Private, 284582, Masters, 14, Married-civ-spouse, Exec-managerial, Wife, White, Female, 0, 0, 40, United-States, <=50K

`;
const TEST = `|1x3 Cross validator
49, Private, 160187, 9th, 5, Married-spouse-absent, Other-service, Not-in-family, Black, Female, 0, 0, 16, Jamaica, <=50K.\r
52, Self-emp-not-inc, 209642, HS-grad, 9, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 45, United-States, >50K.\r
31, Private, 45781, Masters, 14, Never-married, Prof-specialty, Not-in-family, White, Female, 14084, 0, 50, United-States, >50K.\r
42, Private, 159449, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 5178, 0, 40, United-States, >50K.\r
`;
const FILES = [
  { name: "adult.data", text: TRAIN },
  { name: "adult.test", text: TEST },
];

function errorOf(run: () => unknown): MalformedDataError {
  try {
    run();
  } catch (error) {
    return error as MalformedDataError;
  }
  throw new Error("expected an error");
}

describe("parseAdult (fixture)", () => {
  it("drops rows with ?, strips label periods, skips | comments, keeps 15 attributes in file order", () => {
    const { store, schema, info } = parseAdult(FILES);
    expect(schema.attributes.map((a) => a.name)).toEqual(ADULT_ATTRIBUTES);
    expect(info).toMatchObject({
      rowsRead: 11,
      rowsDropped: 1,
      rows: 10,
      files: ["adult.data", "adult.test"],
    });
    expect(info.drops).toEqual([{ reason: 'missing value "?"', rows: 1 }]);
    expect(store.size).toBe(10);
    const income = schema.attributes[14]!;
    expect(income.labels).toEqual(["<=50K", ">50K"]);
    expect(columnSums([store.columns[14]!])).toEqual([3]);
    // Nominal attributes keep the observed categories in adult.names order.
    expect(schema.attributes[1]!.labels).toEqual(["Private", "Self-emp-not-inc", "State-gov"]);
    // Ten distinct ages, at most 10 buckets without a cap: unchanged.
    expect(schema.attributes[0]!.labels).toEqual([
      "28",
      "31",
      "37",
      "38",
      "39",
      "42",
      "49",
      "50",
      "52",
      "53",
    ]);
  });

  it("cuts numeric attributes into mid-rank quantile buckets and nominal ones into top c-1 + other", () => {
    const { schema, store, info } = parseAdult(FILES, { c: 3 });
    // ages sorted, one each (N = 10): bucket floor(3 (i + 0.5) / 10) -> 3, 4, 3 values.
    expect(schema.attributes[0]!.labels).toEqual(["28..37", "38..49", "50..53"]);
    expect(Array.from(store.columns[0]!)).toEqual([1, 2, 1, 2, 0, 0, 1, 2, 0, 1]);
    // workclass has 3 categories: within the cap. education: Bachelors 3, HS-grad 2, Masters 2 (tie: earlier
    // in adult.names order first), 11th 1, 9th 1.
    expect(schema.attributes[1]!.labels).toEqual(["Private", "Self-emp-not-inc", "State-gov"]);
    expect(schema.attributes[3]!.labels).toEqual(["Bachelors", "HS-grad", "other"]);
    // capital-gain: 0 holds 8 of 10 rows (mid-rank 4/10 -> bucket 1), the rest bucket 2.
    expect(schema.attributes[10]!.labels).toEqual(["0", "2174..14084"]);
    expect(schema.attributes.every((a) => a.labels.length <= 3 && a.labels.length >= 2)).toBe(true);
    expect(info.attributes[3]!.rule).toContain("kept the 2 most frequent of 5 categories");
    expect(info.preprocessing.join(" ")).toContain("categories capped at c = 3");
  });

  it("binary partition: every attribute at most 2 categories; a conflicting c is an error", () => {
    const { schema, info } = parseAdult(FILES, { partition: "binary" });
    expect(schema.attributes.every((a) => a.labels.length === 2)).toBe(true);
    expect(info.preprocessing.join(" ")).toContain("binary partition");
    expect(() => parseAdult(FILES, { partition: "binary", c: 3 })).toThrow(/c must be 2/);
  });

  it("selects attributes by name (the classification set) and then the first d", () => {
    const { schema } = parseAdult(FILES, { attributes: ADULT_CLASSIFICATION_ATTRIBUTES, d: 4 });
    expect(schema.attributes.map((a) => a.name)).toEqual(["age", "workclass", "education", "education-num"]);
    expect(() => parseAdult(FILES, { attributes: ["age", "salary"] })).toThrow(/attributes must be among/);
    expect(() => parseAdult(FILES, { d: 16 })).toThrow(/d must be <= 15/);
  });

  it("skips a header line naming the columns", () => {
    const { info } = parseAdult(
      `age,workclass,fnlwgt,education,education-num,marital-status,occupation,relationship,race,sex,capital-gain,capital-loss,hours-per-week,native-country,income\n${TRAIN}`,
    );
    expect(info.rows).toBe(6);
    expect(info.preprocessing.join(" ")).toContain("skipped header lines at <input>:1");
  });

  it("names file, line and field of malformed input, and loads nothing", () => {
    const shortRow = errorOf(() => parseAdult([{ name: "a.data", text: `${TRAIN}39, State-gov, 77516\n` }]));
    expect(shortRow).toBeInstanceOf(MalformedDataError);
    expect(shortRow).toMatchObject({ file: "a.data", line: 9, field: "" });
    expect(shortRow.message).toBe("parseAdult: a.data:9: expected 15 comma-separated fields, got 3");
    const badAge = errorOf(() =>
      parseAdult(TRAIN.replace("38, Private", "3x, Private"), { fileName: "up.csv" }),
    );
    expect(badAge.message).toBe(
      'parseAdult: up.csv:3, field age: expected a non-negative integer (got "3x")',
    );
    const badClass = errorOf(() => parseAdult(TRAIN.replace("State-gov", "Statgov")));
    expect(badClass).toMatchObject({ line: 1, field: "workclass" });
    expect(badClass.message).toContain('not a category of workclass (got "Statgov")');
    expect(() => parseAdult("")).toThrow(/no records left to load/);
  });
});

describe("loadAdult (files)", () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it("reads adult.data then adult.test from a folder, streaming", async () => {
    temp.write("adult.data", TRAIN);
    temp.write("adult.test", TEST);
    const { info } = await loadAdult(temp.dir, { c: 3 });
    expect(info.files.map((f) => f.slice(temp.dir.length + 1))).toEqual(["adult.data", "adult.test"]);
    expect(info).toMatchObject({ rowsRead: 11, rowsDropped: 1, rows: 10 });
  });

  it("reports the file and line of malformed input", async () => {
    const path = temp.write("bad.data", `${TRAIN.trim()}\n1, 2, 3\n`);
    await expect(loadAdult(path)).rejects.toThrow(
      `loadAdult: ${path}:8: expected 15 comma-separated fields, got 3`,
    );
  });

  it("fails clearly on a missing folder", async () => {
    await expect(loadAdult(`${temp.dir}/nope`)).rejects.toThrow(/loadAdult: .*nope: cannot read \(ENOENT\)/);
  });
});

const adult = realFile("adult", "adult: 48,842 rows, 3,620 dropped, 45,222 kept");

describe("loadAdult (real data)", () => {
  it.skipIf(!adult.exists)(adult.name, async () => {
    const { info, store, schema } = await loadAdult(adult.path, { c: 3 });
    expect(info).toMatchObject({ rowsRead: 48842, rowsDropped: 3620, rows: 45222 });
    expect(store.size).toBe(45222);
    // 11,208 of the 45,222 complete rows earn >50K (the well-known Adult class balance).
    expect(columnSums([store.columns[14]!])).toEqual([11208]);
    expect(schema.attributes.every((a) => a.labels.length >= 2 && a.labels.length <= 3)).toBe(true);
    expect(schema.attributes[9]!.labels).toEqual(["Female", "Male"]);
  });
});
