import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createRandomReportId, createReportId, createTimeOrderedReportId, isReportId } from "./report-id.js";
import { reportIdTime } from "./testing.js";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("report ids", () => {
  it("createReportId (the default): version-4 UUIDs, distinct across draws, the same under its older name", () => {
    const rng = seededRng(7);
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = createReportId(rng);
      expect(id).toMatch(V4);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
    expect(isReportId(createReportId())).toBe(true);
    expect(createRandomReportId(seededRng(3))).toBe(createReportId(seededRng(3)));
  });

  it("createReportId does not read the clock: the same random source gives the same id at any time", () => {
    // `make`'s id (same random source) with the clock reading `now`.
    const madeAt = (make: typeof createReportId, now: number) => {
      const clock = Date.now;
      Date.now = () => now;
      try {
        return make(seededRng(11));
      } finally {
        Date.now = clock;
      }
    };
    expect(madeAt(createReportId, 0)).toBe(madeAt(createReportId, 1_700_000_000_000));
    // The check bites: the time-ordered maker does read it.
    expect(madeAt(createTimeOrderedReportId, 0)).not.toBe(
      madeAt(createTimeOrderedReportId, 1_700_000_000_000),
    );
  });

  it("createTimeOrderedReportId: version 7, the millisecond first, then 74 random bits; distinct within one millisecond", () => {
    const rng = seededRng(7);
    const now = Date.UTC(2026, 10, 27, 22, 45, 0, 123);
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = createTimeOrderedReportId(rng, now);
      expect(id).toMatch(V7);
      expect(reportIdTime(id)).toBe(now);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
    expect(isReportId(createTimeOrderedReportId())).toBe(true);
  });

  it("time-ordered ids sort in the order they were made, across milliseconds (as text and as 128-bit keys)", () => {
    const rng = seededRng(8);
    const times = [0, 1, 255, 256, 65_535, 65_536, 1_700_000_000_000, 2 ** 48 - 1];
    const ids = times.map((t) => createTimeOrderedReportId(rng, t));
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]!.startsWith("00000000-0000-7")).toBe(true);
    expect(ids.at(-1)!.startsWith("ffffffff-ffff-7")).toBe(true);
  });

  it("both draw four words of the random source (seeded streams the same whichever is used)", () => {
    const a = seededRng(9);
    const b = seededRng(9);
    createTimeOrderedReportId(a, 1);
    createReportId(b);
    expect(a.nextUint32()).toBe(b.nextUint32());
  });

  it("createTimeOrderedReportId refuses a time that is not an integer millisecond in [0, 2^48)", () => {
    for (const now of [-1, 0.5, 2 ** 48, Number.NaN]) {
      expect(() => createTimeOrderedReportId(seededRng(1), now)).toThrow(
        /createTimeOrderedReportId: now must be an integer number of milliseconds/,
      );
    }
  });

  it("refuses upper case, other shapes and non-strings", () => {
    for (const id of ["ABCDEF01-2345-4678-89ab-0123456789ab", "0123", "", 42, null, "x".repeat(36)]) {
      expect(isReportId(id)).toBe(false);
    }
  });
});
