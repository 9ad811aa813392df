import { afterAll, describe, expect, it } from "vitest";
import { DataSpecError, DatasetFileError } from "../errors.js";
import { realFile, tempDir } from "../test-support.js";
import { loadDataset } from "./load-dataset.js";

const ADULT_ROWS = `39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, <=50K
38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Male, 0, 0, 40, United-States, >50K
`;

describe("loadDataset", () => {
  const temp = tempDir();
  afterAll(() => temp.remove());
  temp.write("adult.data", ADULT_ROWS);
  const retail = temp.write("t.dat", "1 2 3\n1 2\n1\n4\n");
  const csv = temp.write("d.csv", "a,b\nx,1\ny,2\nx,3\n");
  const schema = temp.write("s.json", JSON.stringify({ attributes: [{ name: "b", type: "numeric" }] }));

  it("loads a file spec with d and c, and states n > rows sampling with replacement", async () => {
    const {
      info,
      store,
      schema: out,
    } = await loadDataset(`adult:${temp.dir}?attributes=classification`, { d: 3, c: 2, n: 10, seed: 5 });
    expect(out.attributes.map((a) => a.name)).toEqual(["age", "workclass", "education"]);
    expect(store.size).toBe(10);
    expect(info.sampling).toEqual({
      population: 3,
      n: 10,
      method: "with-replacement",
      withReplacement: true,
      seed: 5,
    });
    expect(info.source).toBe(`adult:${temp.dir}?attributes=classification`);
    const again = await loadDataset(`adult:${temp.dir}?attributes=classification`, {
      d: 3,
      c: 2,
      n: 10,
      seed: 5,
    });
    expect(again.store.columns).toEqual(store.columns);
  });

  it("samples without replacement when n < rows and returns all rows without n", async () => {
    expect((await loadDataset(`transactions:${retail}`, { d: 2, n: 3 })).info.sampling).toMatchObject({
      method: "without-replacement",
      n: 3,
    });
    const all = await loadDataset(`transactions:${retail}`, { d: 2 });
    expect(all.store.size).toBe(4);
    expect(all.info.sampling).toBeUndefined();
  });

  it("passes csv parameters (schema file) and generates synthetic specs", async () => {
    const loaded = await loadDataset(`csv:${csv}?schema=${schema}`, {});
    expect(loaded.schema.attributes.map((a) => a.name)).toEqual(["b"]);
    expect(loaded.info.attributes[0]!.kind).toBe("numeric");
    const synthetic = await loadDataset("synthetic:bn?parents=1", { n: 100, d: 4, seed: 1 });
    expect(synthetic.store.size).toBe(100);
  });

  it("fails clearly: transactions without d, missing files, bad specs, bad options", async () => {
    await expect(loadDataset(`transactions:${retail}`)).rejects.toThrow(
      /loadDataset: d \(the number of most frequent items to keep\) is required/,
    );
    await expect(loadDataset(`msnbc:${temp.dir}/none.seq`)).rejects.toThrow(DatasetFileError);
    await expect(loadDataset("nltcs")).rejects.toThrow(DataSpecError);
    await expect(loadDataset(`adult:${temp.dir}`, { c: 1 })).rejects.toThrow(
      "loadDataset: c must be an integer >= 2 or Infinity (got 1)",
    );
    await expect(loadDataset(`adult:${temp.dir}?partition=binary`, { c: 3 })).rejects.toThrow(
      /c must be 2 \(or absent\) with partition "binary"/,
    );
  });
});

const adult = realFile("adult", "adult via spec, d = 8, c = 3, n = 2^16 (with replacement)");

describe("loadDataset (real data)", () => {
  it.skipIf(!adult.exists)(adult.name, async () => {
    const { store, info, schema } = await loadDataset(`adult:${adult.path}`, {
      d: 8,
      c: 3,
      n: 2 ** 16,
      seed: 1,
    });
    expect(store.size).toBe(65536);
    expect(schema.attributes).toHaveLength(8);
    expect(info.sampling).toMatchObject({ population: 45222, withReplacement: true });
  });
});
