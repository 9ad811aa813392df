import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { MalformedDataError } from "./errors.js";
import { loadTransactions } from "./node/load-transactions.js";
import { columnSums, realFile, rowsOf, tempDir } from "./test-support.js";
import { parseTransactions } from "./transactions.js";

// Item frequencies: 5 -> 4 transactions, 3 -> 3, 9 -> 3, 1 -> 1, 7 -> 1 (the repeated 5 on line 2 counts once).
const FIMI = "5 3 9 \n5 5 3\n\n9 1\n5 9 3 7\n5\n";
const SPMF =
  "5 -1 3 -1 9 -1 -2\r\n5 3 -1 5 -1 -2\r\n-2\r\n9 -1 1 -1 -2\r\n5 -1 9 3 -1 7 -1 -2\r\n5 -1 -2\r\n";

describe("parseTransactions (fixtures)", () => {
  it("keeps the d most frequent items (ties: smaller id) as binary attributes, one record per non-empty line", () => {
    const { schema, store, info } = parseTransactions(FIMI, { d: 3 });
    expect(schema.attributes.map((a) => a.name)).toEqual(["item 5", "item 3", "item 9"]);
    expect(schema.attributes[0]!.labels).toEqual(["0", "1"]);
    expect(rowsOf(store.columns, store.size)).toEqual([
      [1, 1, 1],
      [1, 1, 0],
      [0, 0, 1],
      [1, 1, 1],
      [1, 0, 0],
    ]);
    expect(info).toMatchObject({ rowsRead: 6, rowsDropped: 1, rows: 5 });
    expect(info.preprocessing.join(" ")).toContain("kept the 3 most frequent of 5 distinct items");
  });

  it("reads SPMF (-1/-2 separators, CRLF) into the same records as the FIMI layout", () => {
    const spmf = parseTransactions(SPMF, { d: 4 });
    const fimi = parseTransactions(FIMI, { d: 4 });
    expect(spmf.schema).toEqual(fimi.schema);
    expect(spmf.store.columns).toEqual(fimi.store.columns);
    expect(spmf.info.preprocessing[0]).toContain("SPMF");
    expect(parseTransactions(FIMI, { d: 2, format: "fimi" }).info.preprocessing[0]).toBe(
      "read as FIMI transactions",
    );
  });

  it("names file, line and token of malformed input", () => {
    expect(() => parseTransactions("1 2\n3 x\n", { d: 1, fileName: "t.dat" })).toThrow(
      'parseTransactions: t.dat:2, field token 2: unexpected character "x" (integers only)',
    );
    expect(() => parseTransactions("1 2\n3 -1 4\n", { d: 1, format: "fimi" })).toThrow(
      "<input>:2, field token 2: expected an item id >= 0 (FIMI) (got -1)",
    );
    expect(() => parseTransactions("1 -1 -2 4\n", { d: 1, format: "spmf" })).toThrow(
      /:1, field token 3: expected an item id >= 0, -1, or -2 as the last token/,
    );
    expect(() => parseTransactions("1 2\nfoo\n", { d: 1 })).toThrow(MalformedDataError);
    expect(() => parseTransactions("# comment\n@META\n1 2\n", { d: 2 })).not.toThrow();
    expect(() => parseTransactions("1 2\n", { d: 3 })).toThrow(
      /d must be <= 2 \(the distinct items in the file\)/,
    );
    expect(() => parseTransactions("\n\n", { d: 1 })).toThrow(/no transactions found/);
  });
});

describe("loadTransactions (files)", () => {
  const temp = tempDir();
  afterAll(() => temp.remove());

  it("streams two passes over a plain or gzipped file and matches the in-memory parser", async () => {
    const plain = temp.write("t.dat", FIMI);
    const gz = temp.write("t.dat.gz", gzipSync(Buffer.from(SPMF)));
    const expected = parseTransactions(FIMI, { d: 4 });
    for (const path of [plain, gz]) {
      const loaded = await loadTransactions(path, { d: 4 });
      expect(loaded.store.columns).toEqual(expected.store.columns);
      expect(loaded.info.files).toEqual([path]);
    }
  });

  it("reports the file and line of malformed input", async () => {
    const path = temp.write("bad.dat", "1 2\n3 4\n5 6.5\n");
    await expect(loadTransactions(path, { d: 1 })).rejects.toThrow(
      `loadTransactions: ${path}:3, field token 2`,
    );
  });
});

const retail = realFile("retail/retail.dat", "retail.dat: 88,162 transactions, 16,470 items");
const bms1 = realFile("bms_webview/BMS1.dat", "BMS1.dat (FIMI): 59,602 transactions, 497 items");
const bms2 = realFile("bms_webview/BMS2.txt", "BMS2.txt (SPMF): 77,512 sequences, 3,340 items");

describe("loadTransactions (real data)", () => {
  it.skipIf(!retail.exists)(retail.name, async () => {
    const { info, store } = await loadTransactions(retail.path, { d: 8 });
    expect(info).toMatchObject({ rowsRead: 88162, rowsDropped: 0, rows: 88162 });
    expect(info.preprocessing[1]).toContain("of 16470 distinct items");
    // Item 39 is in 50,675 baskets, 48 in 42,135 (FIMI retail's two best sellers).
    expect(columnSums(store.columns).slice(0, 2)).toEqual([50675, 42135]);
    expect(store.columns.every((column) => column instanceof Uint8Array)).toBe(true);
  });

  it.skipIf(!bms1.exists)(bms1.name, async () => {
    const { info } = await loadTransactions(bms1.path, { d: 16 });
    expect(info).toMatchObject({ rows: 59602 });
    expect(info.preprocessing[1]).toContain("of 497 distinct items");
  });

  it.skipIf(!bms2.exists)(bms2.name, async () => {
    const { info } = await loadTransactions(bms2.path, { d: 16 });
    expect(info).toMatchObject({ rows: 77512 });
    expect(info.preprocessing.join(" ")).toMatch(/SPMF.*of 3340 distinct items/);
  });
});
