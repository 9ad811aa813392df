import { describe, expect, it } from "vitest";
import { parseOptions, runCommandLine } from "../cli-kit.js";
import { summaryTable } from "../harness/table.js";
import { runCommand } from "./run.js";

const context = { json: true, log: () => {} };
const run = async (argv: string[]) =>
  runCommandLine<Promise<Record<string, unknown>>>(runCommand, argv, context);

describe("calm-ldp run --interval", () => {
  it("adds per-method coverage and mean width (methods with intervals only) and keeps the other fields", async () => {
    const doc = await run(
      "--data synthetic:iid?p=0.3 --n 20000 --d 5 --k 2 --eps 1 --reps 3 --queries 4 --seed 3 --workers 1 --methods inpht,margps,fc,uni --interval 0.95".split(
        " ",
      ),
    );
    expect(doc.config).toMatchObject({ interval: 0.95 });
    const rows = doc.results as { method: string; coverage?: number; width?: number; sseMean: number }[];
    for (const row of rows) {
      expect(Number.isFinite(row.sseMean)).toBe(true);
      if (row.method === "uni") {
        expect(row.coverage).toBeUndefined();
        continue;
      }
      // 3 reps x 4 queries x 4 cells = 48 pairs: coverage well above chance, width positive.
      expect(row.coverage!).toBeGreaterThan(0.8);
      expect(row.width!).toBeGreaterThan(0);
    }
    const table = summaryTable(rows as never);
    expect(table.split("\n")[0]).toContain("coverage");
    expect(table).toMatch(/uni .* - +- *$/m);
    expect(() => parseOptions(runCommand, ["--interval", "1.5"])).toThrow();
  });
});
