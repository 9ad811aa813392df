import { afterAll, describe, expect, it } from "vitest";
import { parseBinaryMatrix } from "./binary-matrix.js";
import { loadNltcs } from "./node/load-nltcs.js";
import { columnSums, realFile, rowsOf, tempDir } from "./test-support.js";

describe("parseBinaryMatrix (fixture)", () => {
  it("reads 0/1 rows, skips a header and blank lines, names attributes by prefix and index", () => {
    const { schema, store, info } = parseBinaryMatrix("0,1,2\r\n1,0,1\r\n\r\n0,0,1\r\n");
    expect(schema.attributes.map((a) => a.name)).toEqual(["nltcs0", "nltcs1", "nltcs2"]);
    expect(rowsOf(store.columns, store.size)).toEqual([
      [1, 0, 1],
      [0, 0, 1],
    ]);
    expect(info.preprocessing[0]).toContain('header line skipped: "0,1,2"');
    const spaced = parseBinaryMatrix("1 0 1\n0 0 1\n", { d: 2, namePrefix: "a" });
    expect(spaced.schema.attributes.map((a) => a.name)).toEqual(["a0", "a1"]);
    expect(rowsOf(spaced.store.columns, 2)).toEqual([
      [1, 0],
      [0, 0],
    ]);
  });

  it("names file, line and column of malformed input", () => {
    expect(() => parseBinaryMatrix("1,0\n1,2\n", { fileName: "n.csv" })).toThrow(
      'parseBinaryMatrix: n.csv:2, field column 2: expected 0 or 1 (got "2")',
    );
    expect(() => parseBinaryMatrix("1,0\n1\n")).toThrow("<input>:2: expected 2 values, got 1");
    expect(() => parseBinaryMatrix("a,b\n")).toThrow(/no records found/);
  });
});

describe("loadNltcs (files)", () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it("reads nltcs.csv from a folder, or the three .data splits in order when it is absent", async () => {
    temp.write("nltcs.train.data", "1,0\n");
    temp.write("nltcs.valid.data", "0,1\n");
    temp.write("nltcs.test.data", "1,1\n");
    const splits = await loadNltcs(temp.dir);
    expect(rowsOf(splits.store.columns, 3)).toEqual([
      [1, 0],
      [0, 1],
      [1, 1],
    ]);
    expect(splits.info.files.map((f) => f.slice(temp.dir.length + 1))).toEqual([
      "nltcs.train.data",
      "nltcs.valid.data",
      "nltcs.test.data",
    ]);
    temp.write("nltcs.csv", "x,y\r\n0,0\r\n");
    expect((await loadNltcs(temp.dir)).store.size).toBe(1);
  });
});

const csv = realFile("nltcs/nltcs.csv", "nltcs.csv: 21,574 x 16");
const splits = realFile("nltcs", "nltcs folder");

describe("loadNltcs (real data)", () => {
  it.skipIf(!csv.exists)(csv.name, async () => {
    const { store, info } = await loadNltcs(csv.path);
    expect(store.size).toBe(21574);
    expect(info.rowsRead).toBe(21574);
    // Column sums in nltcs.csv order, as verified in the datasets README.
    expect(columnSums(store.columns)).toEqual([
      3144, 4552, 4949, 10638, 2285, 10477, 5590, 7646, 4671, 14577, 5347, 9466, 4483, 8697, 5947, 11965,
    ]);
  });

  it.skipIf(!splits.exists)(
    `${splits.name}: the .data splits equal nltcs.csv with columns 4 and 15 swapped`,
    async () => {
      const all = await loadNltcs(csv.path);
      const files = ["train", "valid", "test"].map((s) => `${splits.path}/nltcs.${s}.data`);
      const { readFile } = await import("node:fs/promises");
      const text = (await Promise.all(files.map((f) => readFile(f, "utf8")))).join("");
      const data = parseBinaryMatrix(text);
      const sums = columnSums(data.store.columns);
      [sums[4], sums[15]] = [sums[15]!, sums[4]!];
      expect(sums).toEqual(columnSums(all.store.columns));
    },
  );
});
