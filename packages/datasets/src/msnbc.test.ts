import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { MSNBC_CATEGORIES, parseMsnbc } from "./msnbc.js";
import { loadMsnbc } from "./node/load-msnbc.js";
import { columnSums, realFile, rowsOf, tempDir } from "./test-support.js";

const HEADER = `% Different categories found in input file:\r\n\r\n${MSNBC_CATEGORIES.join(" ")}\r\n\r\n\r\n% Sequences:\r\n\r\n`;
const FIXTURE = `${HEADER}1 1 \r\n2 \r\n3 2 2 4 2 2 2 3 3 \r\n17 1 \r\n`;

describe("parseMsnbc (fixture)", () => {
  it("turns each sequence into 17 visited flags named from the header", () => {
    const { schema, store, info } = parseMsnbc(FIXTURE);
    expect(schema.attributes.map((a) => a.name)).toEqual(MSNBC_CATEGORIES);
    expect(store.size).toBe(4);
    const rows = rowsOf(store.columns, 4);
    expect(rows[0]!.slice(0, 4)).toEqual([1, 0, 0, 0]);
    expect(rows[2]!.slice(0, 5)).toEqual([0, 1, 1, 1, 0]);
    expect(rows[3]![0]).toBe(1);
    expect(rows[3]![16]).toBe(1);
    expect(columnSums(store.columns).reduce((a, b) => a + b, 0)).toBe(1 + 1 + 3 + 2);
    expect(info).toMatchObject({ rowsRead: 4, rowsDropped: 0, rows: 4 });
  });

  it("keeps the first d categories, and works without a header", () => {
    const { schema, store } = parseMsnbc("1 2\n3\n", { d: 3 });
    expect(schema.attributes.map((a) => a.name)).toEqual(["frontpage", "news", "tech"]);
    expect(rowsOf(store.columns, 2)).toEqual([
      [1, 1, 0],
      [0, 0, 1],
    ]);
    expect(() => parseMsnbc("1\n", { d: 18 })).toThrow(/d must be <= 17/);
  });

  it("names file, line and token of malformed input", () => {
    expect(() => parseMsnbc(`${HEADER}1 2\r\n3 18\r\n`, { fileName: "m.seq" })).toThrow(
      "parseMsnbc: m.seq:9, field token 2: category code must be in 1..17 (got 18)",
    );
    expect(() => parseMsnbc(`${HEADER}1 2\r\nnews\r\n`)).toThrow(
      /<input>:9: expected a sequence of category codes/,
    );
    expect(() => parseMsnbc(`${HEADER}1 0\r\n`)).toThrow(/category code must be in 1\.\.17 \(got 0\)/);
    expect(() => parseMsnbc(HEADER)).toThrow(/no user sequences found/);
  });
});

describe("loadMsnbc (files)", () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it("reads .seq and gzipped .seq.gz (also from a folder) the same way", async () => {
    const plain = temp.write("x.seq", FIXTURE);
    const expected = parseMsnbc(FIXTURE);
    const sub = tempDir();
    const gz = sub.write("x.seq.gz", gzipSync(Buffer.from(FIXTURE)));
    try {
      for (const path of [plain, gz, sub.dir]) {
        const loaded = await loadMsnbc(path);
        expect(loaded.store.columns).toEqual(expected.store.columns);
      }
      expect((await loadMsnbc(sub.dir)).info.files).toEqual([gz]);
    } finally {
      sub.remove();
    }
  });

  it("reports the file and line of malformed input", async () => {
    const path = temp.write("bad.seq", `${FIXTURE}4 4 x\r\n`);
    await expect(loadMsnbc(path)).rejects.toThrow(`loadMsnbc: ${path}:12, field token 3`);
  });
});

const msnbc = realFile("msnbc/msnbc990928.seq.gz", "msnbc: 989,818 users, 17 visited flags");

describe("loadMsnbc (real data)", () => {
  it.skipIf(!msnbc.exists)(msnbc.name, async () => {
    const { store, info } = await loadMsnbc(msnbc.path);
    expect(store.size).toBe(989818);
    expect(info).toMatchObject({ rowsRead: 989818, rowsDropped: 0 });
    // Users who visited each category at least once, as verified in the datasets README.
    expect(columnSums(store.columns)).toEqual([
      313181, 175286, 121948, 121719, 24987, 217101, 80514, 95615, 90192, 50606, 57597, 112183, 76948, 119138,
      29200, 2082, 11006,
    ]);
  });
});
