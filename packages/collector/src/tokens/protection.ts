import type { Attester } from "./attester.js";

/**
 * Protected mode of `createCollector` (option `tokens`): every report spends one
 * token. The issuer runs inside the collector (give `attester`) or apart (give
 * `issuerUrl`: the collector then verifies tokens with that issuer's public keys
 * and serves no token endpoints; run the issuer with `startIssuer`).
 */
export interface TokenProtection {
  /** Who gets tokens (`testAttester`, `clientKeyAttester`, `addressAttester`, or your own); the issuer inside. */
  readonly attester?: Attester;
  /** Base URL of an issuer running apart (`startIssuer`, `calm-ldp collector issuer`); exclusive with `attester`. */
  readonly issuerUrl?: string;
  /**
   * Directory of the per-round issuer keys, shared by issuer processes (default:
   * this process's memory). The quota ledger is kept there too (`<keyDir>/quota`),
   * so a restarted issuer does not hand out a fresh budget within a window.
   */
  readonly keyDir?: string;
  /** Issuer name in the token challenge (default "calm-ldp"). */
  readonly issuerName?: string;
  /** Most token requests per POST (default 100). */
  readonly maxRequests?: number;
  /** Round tokens a campaign token gets per campaign round (default 1: one report per round). */
  readonly campaignRoundBudget?: number;
  /**
   * Milliseconds between prunes of the issuer's quota ledger (default 600,000: 10
   * minutes; false: never): the counts of windows whose round is closed, or that
   * name no round or campaign any more, are dropped (tokens/ledger-prune.ts).
   * Open rounds and campaigns are kept.
   */
  readonly ledgerPruneEveryMs?: number | false;
}
