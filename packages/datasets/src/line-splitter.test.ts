import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createLineSplitter, forEachLine } from "./line-splitter.js";

function collect(chunks: readonly string[]): [string, number][] {
  const lines: [string, number][] = [];
  const splitter = createLineSplitter((line, n) => lines.push([line, n]));
  for (const chunk of chunks) splitter.push(chunk);
  splitter.end();
  return lines;
}

describe("createLineSplitter", () => {
  it("splits LF and CRLF lines, numbers them from 1, and keeps a last line without terminator", () => {
    expect(collect(["a\r\nb\n\nc"])).toEqual([
      ["a", 1],
      ["b", 2],
      ["", 3],
      ["c", 4],
    ]);
    expect(collect(["a\n"])).toEqual([["a", 1]]);
    expect(collect([""])).toEqual([]);
  });

  it("gives the same lines whatever the chunk boundaries (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r", ",") }),
        fc.array(fc.nat()),
        (text, cuts) => {
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks: string[] = [];
          let start = 0;
          for (const p of points) {
            chunks.push(text.slice(start, p));
            start = p;
          }
          chunks.push(text.slice(start));
          const expected = text === "" ? [] : text.split("\n").map((l) => l.replace(/\r$/, ""));
          if (text.endsWith("\n")) expected.pop();
          expect(collect(chunks).map(([l]) => l)).toEqual(expected);
        },
      ),
    );
  });

  it("forEachLine returns the line count", () => {
    expect(forEachLine("x\ny\n", () => {})).toBe(2);
  });
});
