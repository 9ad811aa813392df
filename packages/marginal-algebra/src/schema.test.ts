import { describe, expect, it } from "vitest";
import { InvalidInputError } from "./errors.js";
import {
  attributeCardinalities,
  attributeIndex,
  createSchema,
  schemaCardinalities,
  uniformSchema,
  validateSchema,
} from "./schema.js";

describe("createSchema", () => {
  it("builds attributes from labels or from cardinalities", () => {
    const schema = createSchema([
      { name: "sex", labels: ["f", "m"] },
      { name: "age", cardinality: 3 },
    ]);
    expect(schema.attributes[1]!.labels).toEqual(["0", "1", "2"]);
    expect(schemaCardinalities(schema)).toEqual([2, 3]);
    expect(attributeCardinalities(schema, [1, 0])).toEqual([3, 2]);
    expect(attributeIndex(schema, "age")).toBe(1);
    expect(Object.isFrozen(schema.attributes)).toBe(true);
  });

  it("rejects bad cardinalities, duplicate names and duplicate labels with the offending value", () => {
    expect(() => createSchema([{ name: "x", cardinality: 1 }])).toThrow(
      /cardinality of "x" must be an integer in \[2, 2\^32\] \(got 1\)/,
    );
    expect(() => createSchema([{ name: "x", cardinality: 2.5 }])).toThrow(InvalidInputError);
    expect(() =>
      createSchema([
        { name: "x", cardinality: 2 },
        { name: "x", cardinality: 3 },
      ]),
    ).toThrow(/distinct \(got "x"\)/);
    expect(() => createSchema([{ name: "x", labels: ["a", "a"] }])).toThrow(/labels of "x" must be distinct/);
    expect(() => createSchema([{ name: "", cardinality: 2 }])).toThrow(/non-empty/);
    expect(() => createSchema([])).toThrow(/at least one attribute/);
    expect(() => attributeCardinalities(uniformSchema(2), [2])).toThrow(/in \[0, 2\) \(got 2\)/);
    expect(() => attributeIndex(uniformSchema(2), "zz")).toThrow(InvalidInputError);
  });

  it("uniformSchema names attributes a0..a{d-1}", () => {
    const schema = uniformSchema(3, 4);
    expect(schema.attributes.map((a) => a.name)).toEqual(["a0", "a1", "a2"]);
    expect(schemaCardinalities(schema)).toEqual([4, 4, 4]);
  });

  it("validateSchema accepts a schema that went through JSON and rejects a broken one", () => {
    const schema = JSON.parse(JSON.stringify(uniformSchema(2)));
    expect(validateSchema(schema)).toBe(schema);
    expect(() => validateSchema({ attributes: [{ name: "a", labels: ["x"] }] })).toThrow(
      /between 2 and 2\^32 labels \(got 1\)/,
    );
  });
});
