import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedDataError } from "./errors.js";
import { createIntLineTokenizer } from "./int-line-tokenizer.js";
import { thrown } from "./test-support.js";

type Event = [kind: "values" | "text", payload: number[] | string, line: number];

function run(input: string, cuts: number[] = []): Event[] {
  const events: Event[] = [];
  const tokenizer = createIntLineTokenizer("test", "f.txt", {
    values: (values, count, line) => events.push(["values", Array.from(values.subarray(0, count)), line]),
    text: (text, line) => events.push(["text", text, line]),
  });
  const bytes = new TextEncoder().encode(input);
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    tokenizer.push(bytes.subarray(start, Math.max(start, Math.min(cut, bytes.length))));
    start = Math.max(start, Math.min(cut, bytes.length));
  }
  tokenizer.end();
  return events;
}

describe("createIntLineTokenizer", () => {
  it("reads integers, blanks, negative tokens, text lines and CRLF", () => {
    expect(run("% head\r\n\r\n1 2 \r\n 30\t-1 -2\nabc d\n7")).toEqual([
      ["text", "% head", 1],
      ["values", [], 2],
      ["values", [1, 2], 3],
      ["values", [30, -1, -2], 4],
      ["text", "abc d", 5],
      ["values", [7], 6],
    ]);
  });

  it("gives the same events whatever the chunk boundaries (property)", () => {
    const line = fc.array(fc.integer({ min: -2, max: 100000 }), { maxLength: 6 }).map((v) => v.join(" "));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.array(fc.nat({ max: 200 })), (lines, cuts) => {
        const text = lines.join("\r\n");
        expect(
          run(
            text,
            [...cuts].sort((a, b) => a - b),
          ),
        ).toEqual(run(text));
      }),
    );
  });

  it("skips a UTF-8 byte order mark at the start", () => {
    expect(run("\uFEFF1 2\n3")).toEqual([
      ["values", [1, 2], 1],
      ["values", [3], 2],
    ]);
  });

  it("names file, line and token of a bad character", () => {
    const error = thrown(() => run("1 2\n3 4.5\n"));
    expect(error).toBeInstanceOf(MalformedDataError);
    expect(error).toMatchObject({ file: "f.txt", line: 2, field: "token 2" });
    expect(error.message).toBe('test: f.txt:2, field token 2: unexpected character "." (integers only)');
  });

  it("rejects a lone minus and a minus inside a number", () => {
    expect(() => run("1 - 2")).toThrow('f.txt:1, field token 2: "-" without digits');
    expect(() => run("5-3")).toThrow(MalformedDataError);
  });
});
