import { InvalidParameterError } from "./errors.js";

/** A request rate limit per client address: `perSecond` sustained, bursts of up to `burst` requests. */
export interface RateLimit {
  /** Requests per second refilled into each address's bucket (> 0). */
  readonly perSecond: number;
  /** Bucket size: requests an idle address may send at once (default max(1, ceil(perSecond))). */
  readonly burst?: number;
}

/** Most addresses tracked at once; beyond that the least recently seen are forgotten (they start full again). */
const MAX_ADDRESSES = 100_000;

/**
 * Parse `<requests-per-second>[,burst]` (e.g. `50` or `50,200`) into a
 * {@link RateLimit}; throws `InvalidParameterError` naming the problem.
 */
export function parseRateLimit(text: string, where = "rateLimit"): RateLimit {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:,\s*(\d+)\s*)?$/.exec(text);
  if (!match)
    throw new InvalidParameterError(
      `${where} must be <requests-per-second>[,<burst>], e.g. 50 or 50,200 (got ${JSON.stringify(text)})`,
    );
  const limit: RateLimit = {
    perSecond: Number(match[1]),
    ...(match[2] !== undefined ? { burst: Number(match[2]) } : {}),
  };
  checkRateLimit(limit, where);
  return limit;
}

function checkRateLimit(limit: RateLimit, where: string): void {
  if (!(Number.isFinite(limit.perSecond) && limit.perSecond > 0))
    throw new InvalidParameterError(`${where}: requests per second must be > 0 (got ${limit.perSecond})`);
  if (limit.burst !== undefined && !(Number.isSafeInteger(limit.burst) && limit.burst >= 1))
    throw new InvalidParameterError(`${where}: burst must be an integer >= 1 (got ${limit.burst})`);
}

/**
 * Token buckets, one per client address: a bucket holds at most `burst` tokens,
 * refills at `perSecond` tokens per second, and each request takes one; a
 * request finding less than one token is refused, told to retry after the time
 * the missing fraction takes to refill. Memory: one entry per address seen
 * recently, at most 100,000 (least recently seen forgotten first; entries whose
 * bucket is full again are dropped by `prune`). O(1) per request. A class
 * because it is state.
 */
export class RateLimiter {
  readonly #rate: number;
  readonly #burst: number;
  readonly #now: () => number;
  /** Address -> [tokens, time of the last refill in ms], least recently seen first. */
  readonly #buckets = new Map<string, [number, number]>();

  constructor(limit: RateLimit, now: () => number = Date.now) {
    checkRateLimit(limit, "rateLimit");
    this.#rate = limit.perSecond / 1000;
    this.#burst = limit.burst ?? Math.max(1, Math.ceil(limit.perSecond));
    this.#now = now;
  }

  /** Take a token for `address`: 0 when the request may go on, else the seconds (>= 1) to wait. */
  take(address: string): number {
    const now = this.#now();
    const bucket = this.#buckets.get(address);
    let tokens = this.#burst;
    if (bucket) {
      tokens = Math.min(this.#burst, bucket[0] + (now - bucket[1]) * this.#rate);
      this.#buckets.delete(address); // re-inserted below: most recently seen last
    } else if (this.#buckets.size >= MAX_ADDRESSES) {
      this.#buckets.delete(this.#buckets.keys().next().value!);
    }
    if (tokens >= 1) {
      this.#buckets.set(address, [tokens - 1, now]);
      return 0;
    }
    this.#buckets.set(address, [tokens, now]);
    return Math.max(1, Math.ceil((1 - tokens) / this.#rate / 1000));
  }

  /** Forget the addresses whose bucket has refilled completely (they behave as new ones). O(addresses). */
  prune(): void {
    const now = this.#now();
    for (const [address, [tokens, last]] of this.#buckets)
      if (tokens + (now - last) * this.#rate >= this.#burst) this.#buckets.delete(address);
  }

  /** Addresses tracked now. */
  get size(): number {
    return this.#buckets.size;
  }
}
