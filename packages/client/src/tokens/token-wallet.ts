import type { BatchAcknowledgement, HttpOptions, ReporterStorage, WireReport } from "../api.js";
import { sendReports } from "../http.js";
import { decodeBase64Strict, reportIdOfToken, TOKEN_BYTES } from "./wire.js";

/** Format tag of a stored wallet; any other tag is not read ("corrupt"). */
const TAG = "calm-ldp-tokens/1";
/** Round tokens a wallet keeps by default (the reporter's `keepRoundIds` default). */
const DEFAULT_KEEP_ROUNDS = 32;

/** A token the wallet holds, with the report id a report spending it must carry (`reportIdOfToken`). */
export interface HeldToken {
  readonly token: string;
  readonly id: string;
}

/** How a wallet found its stored state: none ("new"), "restored", or unreadable and started afresh ("corrupt"). */
export type TokenWalletStart = "new" | "restored" | "corrupt";

/**
 * A device's tokens for one campaign, kept in a `ReporterStorage` (`indexedDbStorage`
 * in a browser) so a reload or restart never asks the issuer again for a token it
 * already holds: the issuer's quota (one campaign token per attested device, one
 * round token per campaign token and round) would refuse it, and a second
 * campaign token would be a second chance at a view.
 */
export interface TokenWallet {
  readonly start: TokenWalletStart;
  /** The kept campaign token, else `obtain()`'s, written to the storage before it is returned. */
  campaignToken(obtain: () => Promise<string>): Promise<string>;
  /** The kept token of `round`, else `obtain()`'s, written before it is returned; with its report id. */
  roundToken(round: string, obtain: () => Promise<string>): Promise<HeldToken>;
  /** The kept round token whose report id is `id`, or undefined. O(1). */
  tokenOfReport(id: string): string | undefined;
  /**
   * A `send` for `createReporter`: `sendReports` to `collector` with each report's
   * token (`tokenOfReport`). A report whose token is no longer kept goes without
   * one, and the collector refuses it (401 `token-required`): the reporter drops it.
   */
  send(
    collector: string,
    options?: HttpOptions,
  ): (round: string, reports: readonly WireReport[]) => Promise<BatchAcknowledgement>;
}

/** What is stored: the campaign token and the latest rounds' tokens, oldest first. */
interface WalletState {
  campaignToken?: string;
  rounds: [round: string, token: string][];
}

const isToken = (text: unknown): text is string =>
  typeof text === "string" && decodeBase64Strict(text)?.length === TOKEN_BYTES;

/** The stored text read back, or undefined when it is not a wallet of `campaign` (bad tag, shape or token). O(size). */
function decodeWallet(text: string, campaign: string): WalletState | undefined {
  let parsed: { tag?: unknown; campaign?: unknown; campaignToken?: unknown; rounds?: unknown };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return undefined;
  }
  const { tag, campaignToken, rounds } = parsed ?? {};
  if (tag !== TAG || parsed.campaign !== campaign || !Array.isArray(rounds)) return undefined;
  if (campaignToken !== undefined && !isToken(campaignToken)) return undefined;
  const roundsOk = rounds.every(
    (entry) => Array.isArray(entry) && typeof entry[0] === "string" && isToken(entry[1]),
  );
  return roundsOk ? { campaignToken, rounds: rounds as WalletState["rounds"] } : undefined;
}

const idOf = (token: string) => reportIdOfToken(decodeBase64Strict(token)!);

/**
 * Open the token wallet of `campaign` in `storage` (key `calm-ldp-tokens:<campaign>`;
 * use the reporter's storage and campaign, or "default" for plain rounds): one read.
 * A stored state that does not parse, or holds a malformed token, is dropped
 * (`start: "corrupt"`): the wallet then asks again and the issuer's quota decides.
 * Calls run one at a time in call order; each token obtained is written (one
 * write of O(keepRounds) tokens) before it is returned, so a failed write throws
 * and the caller never spends a token the wallet would forget. The wallet keeps
 * the campaign token and the tokens of the latest `keepRounds` rounds (default 32,
 * as the reporter keeps round ids). Costs: one SHA-256 per round token held at opening, then one or two per
 * round token obtained.
 * What it stores stays on the device: the tokens are the device's own, and
 * nothing here is sent anywhere but to the issuer and collector that asked for it.
 */
export async function openTokenWallet(
  storage: ReporterStorage,
  campaign: string,
  options: { readonly keepRounds?: number } = {},
): Promise<TokenWallet> {
  const keep = options.keepRounds ?? DEFAULT_KEEP_ROUNDS;
  if (!(Number.isSafeInteger(keep) && keep >= 1))
    throw new RangeError(`openTokenWallet: keepRounds must be an integer >= 1 (got ${keep})`);
  const key = `calm-ldp-tokens:${campaign}`;
  const text = await storage.read(key);
  const decoded = text === undefined ? undefined : decodeWallet(text, campaign);
  const start: TokenWalletStart = text === undefined ? "new" : decoded ? "restored" : "corrupt";
  let state: WalletState = decoded ?? { rounds: [] };
  const ids = new Map<string, string>(); // report id -> round token
  for (const [, token] of state.rounds) ids.set(await idOf(token), token);
  const save = async (next: WalletState) => {
    await storage.write(key, JSON.stringify({ tag: TAG, campaign, ...next }));
    state = next;
  };
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };
  const checked = (token: unknown, what: string): string => {
    if (!isToken(token)) throw new TypeError(`token wallet: ${what} is not the base64 of a token`);
    return token;
  };
  return {
    start,
    campaignToken: (obtain) =>
      serial(async () => {
        if (state.campaignToken !== undefined) return state.campaignToken;
        const token = checked(await obtain(), "the campaign token obtained");
        await save({ ...state, campaignToken: token });
        return token;
      }),
    roundToken: (round, obtain) =>
      serial(async () => {
        const kept = state.rounds.find(([r]) => r === round)?.[1];
        if (kept !== undefined) return { token: kept, id: await idOf(kept) };
        const token = checked(await obtain(), `the token obtained for round ${round}`);
        const rounds = [...state.rounds, [round, token] as [string, string]];
        const cut = Math.max(0, rounds.length - keep);
        await save({ ...state, rounds: rounds.slice(cut) });
        for (const [, pruned] of rounds.slice(0, cut)) ids.delete(await idOf(pruned));
        const id = await idOf(token);
        ids.set(id, token);
        return { token, id };
      }),
    tokenOfReport: (id) => ids.get(id),
    send:
      (collector, httpOptions = {}) =>
      (round, reports) =>
        sendReports(
          collector,
          round,
          reports.map((report) => ({ ...report, token: ids.get(report.id) })),
          httpOptions,
        ),
  };
}
