import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createRandomReportId, createReportId, isReportId } from "./report-id.js";
import { reportIdTime } from "./testing.js";

describe("report ids", () => {
  it("are version-7 UUIDs: the millisecond first, then 74 random bits; distinct within one millisecond", () => {
    const rng = seededRng(7);
    const now = Date.UTC(2026, 10, 27, 22, 45, 0, 123);
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = createReportId(rng, now);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(reportIdTime(id)).toBe(now);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
    expect(isReportId(createReportId())).toBe(true);
  });

  it("sort in the order they were made, across milliseconds (as text and as 128-bit keys)", () => {
    const rng = seededRng(8);
    const times = [0, 1, 255, 256, 65_535, 65_536, 1_700_000_000_000, 2 ** 48 - 1];
    const ids = times.map((t) => createReportId(rng, t));
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]!.startsWith("00000000-0000-7")).toBe(true);
    expect(ids.at(-1)!.startsWith("ffffffff-ffff-7")).toBe(true);
  });

  it("draw four words of the random source, as the version-4 ids do (seeded streams unchanged)", () => {
    const a = seededRng(9);
    const b = seededRng(9);
    createReportId(a, 1);
    createRandomReportId(b);
    expect(a.nextUint32()).toBe(b.nextUint32());
  });

  it("refuse a time that is not an integer millisecond in [0, 2^48)", () => {
    for (const now of [-1, 0.5, 2 ** 48, Number.NaN]) {
      expect(() => createReportId(seededRng(1), now)).toThrow(
        /now must be an integer number of milliseconds/,
      );
    }
  });

  it("createRandomReportId: version-4 UUIDs, distinct across draws", () => {
    const rng = seededRng(7);
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = createRandomReportId(rng);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
  });

  it("refuses upper case, other shapes and non-strings", () => {
    for (const id of ["ABCDEF01-2345-4678-89ab-0123456789ab", "0123", "", 42, null, "x".repeat(36)]) {
      expect(isReportId(id)).toBe(false);
    }
  });
});
