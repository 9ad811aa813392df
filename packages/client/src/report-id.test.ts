import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createReportId, isReportId } from "./report-id.js";

describe("report ids", () => {
  it("are version-4 UUIDs in canonical lower case, distinct across draws", () => {
    const rng = seededRng(7);
    const ids = new Set<string>();
    for (let i = 0; i < 10_000; i++) {
      const id = createReportId(rng);
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(10_000);
    expect(isReportId(createReportId())).toBe(true);
  });

  it("refuses upper case, other shapes and non-strings", () => {
    for (const id of ["ABCDEF01-2345-4678-89ab-0123456789ab", "0123", "", 42, null, "x".repeat(36)]) {
      expect(isReportId(id)).toBe(false);
    }
  });
});
