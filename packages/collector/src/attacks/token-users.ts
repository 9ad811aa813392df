import type { CalmPlan } from "@calm-ldp/calm-core";
import { CollectorResponseError, type WireReport } from "@calm-ldp/client";
import { createTokenReport, fetchTokenKey, obtainTokens, type TokenKey } from "@calm-ldp/client/tokens";
import type { Rng } from "@calm-ldp/random";

/** At most `limit` calls of `task` at once. */
export function limiter(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

/** The round's token key, or undefined when the collector is not in protected mode (404 on the token-key route). */
export async function protectedKey(url: string, round: string): Promise<TokenKey | undefined> {
  try {
    return await fetchTokenKey(url, round);
  } catch (error) {
    if (error instanceof CollectorResponseError && error.status === 404 && error.reason === "not-found")
      return undefined;
    throw error;
  }
}

/**
 * Honest users of a protected round, as `simulateUsers`'s `reportFor`: each user
 * asks the issuer for one token under her own device id (`<prefix>-<user>`, for
 * the test attester), then spends it on her report (`createTokenReport`: the
 * token's view and id). At most `concurrency` token requests in flight. Cost per
 * user: one HTTP request, ~1 ms client blinding, ~1 ms issuer signing.
 */
export function tokenUsers(
  url: string,
  plan: CalmPlan,
  key: TokenKey,
  rng: Rng,
  prefix: string,
  concurrency = 16,
): (record: readonly number[], user: number) => Promise<WireReport> {
  const limit = limiter(concurrency);
  return async (record, user) => {
    const [token] = await limit(() => obtainTokens(url, key, 1, { attestation: `${prefix}-${user}` }));
    return createTokenReport(plan, record, token!, { rng });
  };
}
