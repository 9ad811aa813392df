import { join } from "node:path";
import type { FastifyReply } from "fastify";
import type { CollectorContext } from "../collector-context.js";
import { InvalidParameterError } from "../errors.js";
import type { Attester } from "./attester.js";
import { storedRoundLookup } from "./issuer-rounds.js";
import { registerIssuer } from "./issuer-routes.js";
import { registerKeyDirectory } from "./key-directory.js";
import { TokenKeyring } from "./keyring.js";
import { DirectoryQuotaLedger, QuotaLedger, type QuotaStore } from "./ledger.js";
import { DEFAULT_LEDGER_PRUNE_EVERY_MS, pruneOnSchedule } from "./ledger-prune.js";
import type { TokenProtection } from "./protection.js";
import { keyringSource, RemoteKeys, type ReportGate, tokenGate } from "./token-gate.js";

export {
  CAMPAIGN_TOKEN_KEY_ROUTE,
  CAMPAIGN_TOKENS_ROUTE,
  TOKEN_KEY_ROUTE,
  TOKENS_ROUTE,
} from "./issuer-routes.js";
export type { TokenProtection } from "./protection.js";
export type { ReportGate } from "./token-gate.js";

/** An issuer's state: its keyring and its quota ledger (on disk beside the keys when `keyDir` is given). */
export interface IssuerState {
  readonly keyring: TokenKeyring;
  readonly ledger: QuotaStore;
  readonly attester: Attester;
  readonly maxRequests: number;
  readonly campaignRoundBudget: number;
}

/** The interval of the scheduled ledger prune (`ledgerPruneEveryMs`), undefined when off. */
export function ledgerPruneEvery(protection: TokenProtection): number | undefined {
  const every = protection.ledgerPruneEveryMs ?? DEFAULT_LEDGER_PRUNE_EVERY_MS;
  if (every === false) return undefined;
  if (!(Number.isFinite(every) && every > 0))
    throw new InvalidParameterError(`tokens: ledgerPruneEveryMs must be > 0 ms or false (got ${every})`);
  return every;
}

/** The issuer's keyring and ledger for `protection` (which must name an attester). */
export function issuerState(protection: TokenProtection): IssuerState {
  const { attester, keyDir } = protection;
  if (!attester) throw new InvalidParameterError("tokens: an issuer needs an attester");
  const campaignRoundBudget = protection.campaignRoundBudget ?? 1;
  if (!(Number.isSafeInteger(campaignRoundBudget) && campaignRoundBudget >= 1))
    throw new InvalidParameterError(
      `tokens: campaignRoundBudget must be an integer >= 1 (got ${campaignRoundBudget})`,
    );
  return {
    keyring: new TokenKeyring(protection.issuerName ?? "calm-ldp", keyDir),
    ledger: keyDir === undefined ? new QuotaLedger() : new DirectoryQuotaLedger(join(keyDir, "quota")),
    attester,
    maxRequests: protection.maxRequests ?? 100,
    campaignRoundBudget,
  };
}

/**
 * Protected mode in the collector: with an `attester`, the issuer's endpoints
 * (issuer-routes.ts) are served here, from this collector's rounds, and reports
 * are checked with the same keys; with `issuerUrl`, no token endpoint is served
 * and reports are checked with the public keys of that issuer (token-gate.ts).
 * Returns the report gate the report endpoint calls.
 */
export function registerTokens(context: CollectorContext, protection: TokenProtection): ReportGate {
  if ((protection.attester === undefined) === (protection.issuerUrl === undefined))
    throw new InvalidParameterError(
      "tokens: give either attester (issuer inside) or issuerUrl (issuer apart)",
    );
  const { app, cors, findRound, storage } = context;
  const rounds = storedRoundLookup({
    findRound,
    closedAt: async (round) => (await storage.roundState(round)).closedAt,
  });
  const refusePreflight = (reply: FastifyReply) => context.refusePreflight(reply);
  if (protection.issuerUrl !== undefined) {
    // The keys this collector verifies with, served as its key directory (a device's second origin).
    const keys = new RemoteKeys(protection.issuerUrl);
    registerKeyDirectory({ app, cors, refusePreflight, rounds, keys });
    return tokenGate(keys);
  }
  const state = issuerState(protection);
  registerIssuer({ app, cors, refusePreflight, rounds, ...state });
  const keys = keyringSource(state.keyring);
  registerKeyDirectory({ app, cors, refusePreflight, rounds, keys });
  pruneOnSchedule(
    app,
    { ledger: state.ledger, rounds, everyMs: ledgerPruneEvery(protection) },
    {
      pruned: (result, line) => {
        context.metrics.ledgerPruned(result.pruned.length);
        if (line) app.log.info({ windows: result.pruned, kept: result.kept, unknown: result.unknown }, line);
      },
      failed: (error) => app.log.error(error, "token quota ledger: prune failed; retrying at the next"),
    },
  );
  return tokenGate(keys);
}
