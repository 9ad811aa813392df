import { describe, expect, it } from "vitest";
import { bearerChecker } from "./auth.js";

describe("bearerChecker", () => {
  const check = bearerChecker("s3cret-token-0123456789");
  it("accepts exactly the token, as Bearer credentials (scheme case-insensitive)", () => {
    expect(check("Bearer s3cret-token-0123456789")).toBe("ok");
    expect(check("bearer s3cret-token-0123456789")).toBe("ok");
  });
  it("tells a missing or malformed header from a wrong token", () => {
    for (const header of [
      undefined,
      "",
      "Bearer",
      "Bearer ",
      "Basic s3cret-token-0123456789",
      "s3cret-token-0123456789",
      "Bearer a b",
    ])
      expect(check(header), String(header)).toBe("missing");
    for (const header of [
      "Bearer s3cret-token-012345678",
      "Bearer s3cret-token-01234567890",
      "Bearer S3CRET-TOKEN-0123456789",
    ])
      expect(check(header), header).toBe("wrong");
  });
});
