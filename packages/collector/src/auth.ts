import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * A checker of `Authorization: Bearer <token>` headers against `token`. The
 * comparison is constant-time (`timingSafeEqual` on SHA-256 digests, so the
 * token's length does not leak either). Returns "missing" (no bearer
 * credentials), "wrong" or "ok". O(header length).
 */
export function bearerChecker(token: string): (header: string | undefined) => "missing" | "wrong" | "ok" {
  const expected = digest(token);
  return (header) => {
    if (typeof header !== "string" || !/^Bearer [^\s]+$/i.test(header)) return "missing";
    return timingSafeEqual(digest(header.slice(7)), expected) ? "ok" : "wrong";
  };
}
