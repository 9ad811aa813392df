import { describe, expect, it, vi } from "vitest";
import { formatTable, latency, nsPer, perSecond, printThroughput, runtime } from "./index.js";

describe("bench-support", () => {
  it("pads the first column at the end and the others at the start, each to its widest cell", () => {
    expect(
      formatTable(
        ["task", "ms"],
        [
          ["a long task name", "1.5"],
          ["b", "12.25"],
        ],
      ),
    ).toEqual(["task                 ms", "a long task name    1.5", "b                 12.25"]);
  });

  it("left-aligns the text columns it is given", () => {
    expect(formatTable(["what", "n", "note"], [["a", "10", "x"]], { left: [0, 2] })).toEqual([
      "what   n  note",
      "a     10  x",
    ]);
  });

  it("reads a tinybench task's latencies, NaN when it did not run", () => {
    expect(latency({ name: "x", result: { latency: { mean: 2, min: 1, p50: 1.5 } } })).toEqual({
      mean: 2,
      best: 1,
      p50: 1.5,
    });
    const missing = latency({ name: "y" });
    expect([missing.mean, missing.best, missing.p50].every(Number.isNaN)).toBe(true);
  });

  it("formats rates and per-item costs", () => {
    expect(perSecond(2_000_000, 1000)).toBe("2,000,000");
    expect(nsPer(1, 1000)).toBe("1000.00");
    expect(nsPer(2, 1_000_000, 1)).toBe("2.0");
    expect(runtime()).toMatch(/^Node v\d+/);
  });

  it("prints a throughput table: mean ms/op, items/s and ns/item from each task's item count", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      printThroughput([{ name: "fill", result: { latency: { mean: 2, min: 1, p50: 2 } } }], () => 1000);
      expect(log.mock.calls.map((call) => call[0])).toEqual([
        "task  ms/op  items/s  ns/item",
        "fill  2.000  500,000  2000.00",
      ]);
    } finally {
      log.mockRestore();
    }
  });
});
