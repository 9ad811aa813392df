import { describe, expect, it } from "vitest";
import {
  CalmLdpError,
  CannotRunError,
  fail,
  formatValue,
  InvalidParameterError,
  MalformedReportError,
} from "./index.js";

describe("the error family", () => {
  it("every class is a CalmLdpError and an Error, with its own name", () => {
    const errors = [
      new InvalidParameterError("a"),
      new CannotRunError("b"),
      new MalformedReportError("c", "value"),
    ];
    expect(errors.map((e) => e.name)).toEqual([
      "InvalidParameterError",
      "CannotRunError",
      "MalformedReportError",
    ]);
    for (const e of errors) {
      expect(e).toBeInstanceOf(CalmLdpError);
      expect(e).toBeInstanceOf(Error);
    }
    expect(new CannotRunError("b")).not.toBeInstanceOf(InvalidParameterError);
  });

  it("MalformedReportError carries the failed check", () => {
    expect(new MalformedReportError("x", "fingerprint").problem).toBe("fingerprint");
  });

  it("fail throws the house message", () => {
    expect(() => fail("f", "n must be >= 1", 0)).toThrow(
      new InvalidParameterError("f: n must be >= 1 (got 0)"),
    );
    expect(() => fail("f", "n must be >= 1", 0)).toThrow(InvalidParameterError);
  });

  it("formatValue shows strings, bigints, arrays and typed arrays", () => {
    expect(formatValue("a")).toBe('"a"');
    expect(formatValue(3n)).toBe("3n");
    expect(formatValue([1, "x", [2]])).toBe('[1, "x", [2]]');
    expect(formatValue(new Float64Array(5))).toBe("Float64Array(5)");
    expect(formatValue(new DataView(new ArrayBuffer(3)))).toBe("DataView(3)");
    expect(formatValue(undefined)).toBe("undefined");
    expect(formatValue(Number.NaN)).toBe("NaN");
  });
});
