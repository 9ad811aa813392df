import { describe, expect, it } from "vitest";
import { perObject } from "./per-object.js";

describe("perObject", () => {
  it("builds once per key object and returns that value afterwards", () => {
    const built: object[] = [];
    const sizeOf = perObject((key: { items: number[] }) => {
      built.push(key);
      return { size: key.items.length };
    });
    const a = { items: [1, 2] };
    const b = { items: [1, 2] };
    const first = sizeOf(a);
    expect(sizeOf(a)).toBe(first);
    expect(sizeOf(b)).not.toBe(first);
    expect(sizeOf(b)).toEqual({ size: 2 });
    expect(built).toEqual([a, b]);
  });

  it("does not cache a build that threw", () => {
    let calls = 0;
    const checked = perObject((key: { ok: boolean }) => {
      calls++;
      if (!key.ok) throw new Error("bad key");
      return calls;
    });
    const key = { ok: false };
    expect(() => checked(key)).toThrow("bad key");
    key.ok = true;
    expect(checked(key)).toBe(2);
    expect(checked(key)).toBe(2);
  });
});
