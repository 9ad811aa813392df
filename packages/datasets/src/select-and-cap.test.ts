import { describe, expect, it } from "vitest";
import { parseAdult } from "./adult.js";
import { capCategories } from "./cap-categories.js";
import { parseCsv } from "./csv.js";
import { selectAttributes } from "./select-attributes.js";

const ROWS = "a,b,n\nx,p,1\ny,p,2\nz,q,3\nx,r,4\nx,p,5\ny,q,6\n";

describe("selectAttributes", () => {
  it("keeps the first d attributes, sharing columns, and records the step", () => {
    const data = parseCsv(ROWS);
    const two = selectAttributes(data, 2);
    expect(two.schema.attributes.map((a) => a.name)).toEqual(["a", "b"]);
    expect(two.store.columns[0]).toBe(data.store.columns[0]);
    expect(two.info.attributes).toHaveLength(2);
    expect(two.info.preprocessing.at(-1)).toBe("kept the first 2 of 3 attributes");
    expect(selectAttributes(data, 3)).toBe(data);
    expect(() => selectAttributes(data, 4)).toThrow(
      "selectAttributes: d must be <= 3 (the attributes available) (got 4)",
    );
  });
});

describe("capCategories", () => {
  it("caps nominal attributes by frequency and numeric ones by quantile, leaving small ones shared", () => {
    const data = parseCsv(ROWS, {
      schema: { attributes: [{ name: "a" }, { name: "b" }, { name: "n", type: "numeric" }] },
    });
    const capped = capCategories(data, 2);
    expect(capped.schema.attributes.map((a) => a.labels)).toEqual([
      ["x", "other"],
      ["p", "other"],
      ["1..3", "4..6"],
    ]);
    expect(Array.from(capped.store.columns[2]!)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(capped.info.attributes[0]!.rule).toBe(
      'kept the 1 most frequent of 3 categories, merged 2 into "other"',
    );
    const wide = capCategories(data, 6);
    expect(wide.store.columns[0]).toBe(data.store.columns[0]);
    expect(() => capCategories(data, 1)).toThrow(
      "capCategories: c must be an integer >= 2 or Infinity (got 1)",
    );
  });

  it("re-capping an Adult load agrees with loading at the smaller cap for nominal attributes", () => {
    const text =
      "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K\n38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, <=50K\n";
    const direct = parseAdult(text, { c: 2 });
    const later = capCategories(parseAdult(text, { c: 3 }), 2);
    expect(later.schema.attributes[5]).toEqual(direct.schema.attributes[5]);
    expect(later.store.columns[5]).toEqual(direct.store.columns[5]);
  });
});
