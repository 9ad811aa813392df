import type { Attester } from "./attester.js";

/** Protected mode of `createCollector` (option `tokens`): every report spends one token. */
export interface TokenProtection {
  /** Who gets tokens (`testAttester`, `clientKeyAttester`, `addressAttester`, or your own). */
  readonly attester: Attester;
  /** Directory of the per-round issuer keys, shared by collector processes (default: this process's memory). */
  readonly keyDir?: string;
  /** Issuer name in the token challenge (default "calm-ldp"). */
  readonly issuerName?: string;
  /** Most token requests per POST (default 100). */
  readonly maxRequests?: number;
}
