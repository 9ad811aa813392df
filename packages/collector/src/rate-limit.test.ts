import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "./errors.js";
import { parseRateLimit, RateLimiter } from "./rate-limit.js";

describe("RateLimiter", () => {
  it("lets a burst through, then perSecond sustained, per address, with the wait to retry", () => {
    let now = 1_000_000;
    const limiter = new RateLimiter({ perSecond: 10, burst: 3 }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take("a"))).toEqual([0, 0, 0, 1]);
    expect(limiter.take("b")).toBe(0); // another address has its own bucket
    now += 100; // one token refilled (10 per second)
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(1);
    // Over 10 s at a steady 20 requests per second, 10 per second go through.
    let allowed = 0;
    for (let i = 0; i < 200; i++) {
      now += 50;
      if (limiter.take("a") === 0) allowed++;
    }
    expect(allowed).toBe(100);
  });

  it("tells a slow bucket to wait the seconds one token takes", () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 0.1 }, () => now);
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(10);
    now += 4000;
    expect(limiter.take("a")).toBe(6);
  });

  it("forgets addresses whose bucket is full again", () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, () => now);
    limiter.take("a");
    limiter.take("b");
    limiter.take("b");
    now += 1000;
    limiter.prune();
    expect(limiter.size).toBe(1); // a is full again; b has one token of two
    now += 1000;
    limiter.prune();
    expect(limiter.size).toBe(0);
  });

  it("parses <requests-per-second>[,burst] and refuses anything else", () => {
    expect(parseRateLimit("50")).toEqual({ perSecond: 50 });
    expect(parseRateLimit("2.5,10")).toEqual({ perSecond: 2.5, burst: 10 });
    for (const bad of ["", "0", "-1", "x", "5,0", "5,1.5", "5,", ",5"])
      expect(() => parseRateLimit(bad, "--rate-limit"), bad).toThrow(InvalidParameterError);
    expect(() => parseRateLimit("fast", "--rate-limit")).toThrow(
      /--rate-limit must be <requests-per-second>/,
    );
    expect(() => new RateLimiter({ perSecond: Number.NaN })).toThrow(/requests per second must be > 0/);
  });
});
