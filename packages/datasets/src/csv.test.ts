import { afterAll, describe, expect, it } from "vitest";
import { parseCsv } from "./csv.js";
import { splitCsvLine } from "./csv-fields.js";
import { parseCsvSchema } from "./csv-schema.js";
import { MalformedDataError } from "./errors.js";
import { loadCsv } from "./node/load-csv.js";
import { rowsOf, tempDir, thrown } from "./test-support.js";

const PEOPLE = `sex, age, city, note
F, 31, "Paris, FR", a
M, 45, Lyon, "say ""hi"""
F, 22, Lyon, b
M, ?, Paris, c
F, 45, Nice, d
`;

describe("splitCsvLine", () => {
  it("handles quotes, doubled quotes, delimiters inside quotes, blanks and empty fields", () => {
    expect(splitCsvLine(' a , "b, c" ,"d ""e""",', ",")).toEqual(["a", "b, c", 'd "e"', ""]);
    expect(splitCsvLine("a\tb", "\t")).toEqual(["a", "b"]);
    expect(splitCsvLine('a,"b', ",")).toMatch(/unterminated quoted field 2/);
    expect(splitCsvLine('"a"b,c', ",")).toMatch(/text after the closing quote of field 1/);
  });
});

describe("parseCsv (inferred categories)", () => {
  it("reads every column, sorts categories (numerically when all are numbers), drops rows with missing values", () => {
    const { schema, store, info } = parseCsv(PEOPLE);
    expect(schema.attributes.map((a) => a.name)).toEqual(["sex", "age", "city", "note"]);
    expect(schema.attributes[1]!.labels).toEqual(["22", "31", "45"]);
    expect(schema.attributes[2]!.labels).toEqual(["Lyon", "Nice", "Paris, FR"]);
    expect(info).toMatchObject({ rowsRead: 5, rowsDropped: 1, rows: 4 });
    expect(rowsOf(store.columns, 4).map((r) => r.slice(0, 3))).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [0, 0, 0],
      [0, 2, 1],
    ]);
    // "Paris" only appeared on the dropped row: not a category.
    expect(info.attributes[2]!.rule).toBe("removed 1 category without records");
  });

  it("caps categories (top c-1 + other) and selects the first d columns", () => {
    const { schema } = parseCsv(PEOPLE, { c: 2, d: 3 });
    expect(schema.attributes.map((a) => a.labels)).toEqual([
      ["F", "M"],
      ["45", "other"],
      ["Lyon", "other"],
    ]);
  });

  it("fails at the line where a column exceeds maxCategories, naming the column", () => {
    const error = thrown(() => parseCsv("id\n1\n2\n3\n", { maxCategories: 2, fileName: "ids.csv" }));
    expect(error).toBeInstanceOf(MalformedDataError);
    expect(error).toMatchObject({ file: "ids.csv", line: 4, field: "id" });
    expect(error.message).toContain('more than maxCategories = 2 distinct values (new value "3")');
  });

  it("rejects rows with the wrong number of fields, unterminated quotes, and an empty input", () => {
    expect(() => parseCsv("a,b\n1,2\n3\n")).toThrow("parseCsv: <input>:3: expected 2 fields, got 1");
    expect(() => parseCsv('a,b\n1,"2\n')).toThrow(/<input>:2: unterminated quoted field 2/);
    expect(() => parseCsv("")).toThrow(/no lines found/);
  });

  it("reads headerless files with col<i> names and other delimiters", () => {
    const { schema } = parseCsv("x;y\nz;y\n", { header: false, delimiter: ";" });
    expect(schema.attributes.map((a) => [a.name, a.labels])).toEqual([
      ["col0", ["x", "z"]],
      ["col1", ["y", "(empty)"]],
    ]);
  });
});

describe("parseCsv (schema)", () => {
  const schema = parseCsvSchema(
    JSON.stringify({
      attributes: [
        { name: "city", labels: ["Paris, FR", "Lyon", "Nice", "Marseille", "Paris"] },
        { name: "years", column: "age", type: "numeric" },
        { name: "sex", labels: ["F", "M"] },
      ],
    }),
    "people.json",
  );

  it("reads only the schema's attributes, in schema order, keeping declared domains", () => {
    const { schema: out, store, info } = parseCsv(PEOPLE, { schema });
    expect(out.attributes.map((a) => a.name)).toEqual(["city", "years", "sex"]);
    expect(out.attributes[0]!.labels).toEqual(["Paris, FR", "Lyon", "Nice", "Marseille", "Paris"]);
    expect(out.attributes[1]!.labels).toEqual(["22", "31", "45"]);
    expect(info.attributes[1]!.kind).toBe("numeric");
    expect(store.size).toBe(4);
    // The declared domain is kept; capping merges the least frequent into "other".
    expect(parseCsv(PEOPLE, { schema, c: 2 }).schema.attributes[0]!.labels).toEqual(["Lyon", "other"]);
  });

  it("rejects a value outside the declared labels and a non-number in a numeric column", () => {
    expect(() => parseCsv(PEOPLE.replace("Nice", "Nizza"), { schema })).toThrow(
      'parseCsv: <input>:6, field city: not one of the declared labels (got "Nizza")',
    );
    expect(() => parseCsv(PEOPLE.replace("22", "old"), { schema })).toThrow(
      /<input>:4, field years: expected a finite number \(got "old"\)/,
    );
    const missingColumn = parseCsvSchema({ attributes: [{ name: "zip" }] });
    expect(() => parseCsv(PEOPLE, { schema: missingColumn })).toThrow(
      /<input>:1, field zip: schema attribute "zip": no such column in the header/,
    );
  });

  it("validates schema files, naming the JSON path", () => {
    expect(() => parseCsvSchema("{", "s.json")).toThrow(/parseCsvSchema: s\.json: not valid JSON/);
    expect(() => parseCsvSchema({ attributes: [{ name: "a", labels: ["x"] }] }, "s.json")).toThrow(
      "parseCsvSchema: s.json, field attributes[0].labels: expected an array of at least 2 strings",
    );
    expect(() => parseCsvSchema({ attributes: [{ name: "a" }, { name: "a" }] })).toThrow(
      /attributes\[1\]\.name: duplicate/,
    );
    expect(() => parseCsvSchema({ attributes: [{ name: "a", kind: "x" }] })).toThrow(
      /attributes\[0\]\.kind: unknown key/,
    );
    expect(() =>
      parseCsvSchema({ attributes: [{ name: "a", type: "numeric", labels: ["1", "2"] }] }),
    ).toThrow(/takes no labels/);
    // A marginal-algebra Schema is a valid CSV schema.
    expect(parseCsvSchema({ attributes: [{ name: "a", labels: ["0", "1"] }] }).attributes[0]!.labels).toEqual(
      ["0", "1"],
    );
  });
});

describe("loadCsv (files)", () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it("streams a file with a schema file path and matches the in-memory parser", async () => {
    const data = temp.write("people.csv", PEOPLE);
    const schemaPath = temp.write(
      "people.json",
      JSON.stringify({ attributes: [{ name: "sex", labels: ["F", "M"] }, { name: "city" }] }),
    );
    const loaded = await loadCsv(data, { schema: schemaPath });
    const expected = parseCsv(PEOPLE, {
      schema: parseCsvSchema({ attributes: [{ name: "sex", labels: ["F", "M"] }, { name: "city" }] }),
    });
    expect(loaded.store.columns).toEqual(expected.store.columns);
    expect(loaded.schema).toEqual(expected.schema);
    expect(loaded.info.files).toEqual([data]);
  });

  it("names the schema file when it is missing or invalid, and the data file on malformed rows", async () => {
    const data = temp.write("p2.csv", PEOPLE);
    await expect(loadCsv(data, { schema: `${temp.dir}/none.json` })).rejects.toThrow(
      /loadCsv: .*none\.json: cannot read the schema file \(ENOENT\)/,
    );
    const bad = temp.write("bad.json", '{"attributes": 3}');
    await expect(loadCsv(data, { schema: bad })).rejects.toThrow(`parseCsvSchema: ${bad}, field attributes`);
    const broken = temp.write("broken.csv", `${PEOPLE}F, 1\n`);
    await expect(loadCsv(broken)).rejects.toThrow(`loadCsv: ${broken}:7: expected 4 fields, got 2`);
  });
});
