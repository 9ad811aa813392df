/**
 * `@calm-ldp/client/tokens`: Privacy Pass tokens (RFC 9578 type 0x0002, blind
 * RSA) for collectors in protected mode, kept out of the base bundle. A device
 * fetches the round's token key, blinds a token request, has it signed by the
 * issuer (after its attester vouches for the device), unblinds it, and spends it
 * on one report: the token fixes the report's view and id. The issuer sees only
 * blinded messages, so a spent token cannot be linked to its issuance.
 */
import type { CalmPlan } from "@calm-ldp/calm-core";
import type { CreateReportOptions, HttpOptions, WireReport } from "../api.js";
import { createReport } from "../create-report.js";
import { call, roundUrl } from "../http.js";
import { blindMessage, concat, finalizeSignature, type RsaPublicKey } from "./blind-rsa.js";
import { checkKeyConsistency, type KeyConsistency } from "./key-consistency.js";
import {
  decodeBase64Strict,
  encodeBase64,
  reportIdOfToken,
  rsaKeyOfSpki,
  sha256,
  TOKEN_BYTES,
  TOKEN_TYPE,
  viewOfToken,
} from "./wire.js";

export { type RsaPublicKey, toBytes } from "./blind-rsa.js";
export {
  checkKeyConsistency,
  type KeyConsistency,
  KeyConsistencyError,
  type KeyToCheck,
} from "./key-consistency.js";
export {
  type HeldToken,
  openTokenWallet,
  type TokenWallet,
  type TokenWalletStart,
} from "./token-wallet.js";
export {
  ID_LABEL,
  reportIdOfDigest,
  reportIdOfToken,
  rsaKeyOfSpki,
  TOKEN_BYTES,
  TOKEN_INPUT_BYTES,
  TOKEN_TYPE,
  VIEW_LABEL,
  viewOfDigest,
  viewOfToken,
} from "./wire.js";

/** `GET /v1/rounds/:id/token-key`: what a device needs to ask for tokens of a protected round. */
export interface TokenKeyResponse {
  readonly round: string;
  readonly tokenType: number;
  /** Base64 of the issuer's key (SubjectPublicKeyInfo, RSASSA-PSS form); its SHA-256 is the token key id. */
  readonly publicKey: string;
  /** Base64 of the round's TokenChallenge (RFC 9577 §2.1.1); tokens carry its SHA-256. */
  readonly challenge: string;
  /** The issuer's attester ("test", "client-key", "address", or a custom name). */
  readonly attester: string;
  /** "round" (a round's tokens, spent on reports) or "campaign" (campaign tokens, shown to the issuer); absent: "round". */
  readonly scope?: "round" | "campaign";
  /** A campaign round's key: its campaign, and the view whose reports it signs for. */
  readonly campaign?: string;
  readonly view?: number;
  /** A campaign key: the plan's number of views (the campaign view is `campaignView(token, views)`). */
  readonly views?: number;
}

/** A key ready for blinding: the response, the parsed RSA key, its id and the challenge digest. */
export interface TokenKey extends TokenKeyResponse {
  readonly rsa: RsaPublicKey;
  readonly keyId: Uint8Array;
  readonly challengeDigest: Uint8Array;
}

function bytesOf(text: string, what: string): Uint8Array {
  const bytes = decodeBase64Strict(text);
  if (!bytes) throw new Error(`token key: ${what} is not canonical base64`);
  return bytes;
}

/** HTTP options of the key fetches, and the key-consistency check to run on the key (none: unchecked). */
export interface FetchTokenKeyOptions extends HttpOptions {
  /** Check the key against a second origin's key directory and/or pinned key ids (`checkKeyConsistency`). */
  readonly consistency?: KeyConsistency;
}

/** The key read from `body`, checked with `options.consistency` when given. */
async function checkedKey(body: TokenKeyResponse, options: FetchTokenKeyOptions): Promise<TokenKey> {
  const key = await readTokenKey(body);
  if (options.consistency) await checkKeyConsistency(key, options.consistency, options);
  return key;
}

/**
 * The round's token key from the issuer at `base` (the collector, or an issuer
 * running apart), fetched and parsed; a campaign round has one key per view:
 * pass the device's campaign view (`options.view`). With `options.consistency`
 * the key is refused (`KeyConsistencyError`) unless the second origin's
 * directory or the pins name it. Throws `CollectorResponseError` on an HTTP error.
 */
export async function fetchTokenKey(
  base: string,
  round: string,
  options: FetchTokenKeyOptions & { readonly view?: number } = {},
): Promise<TokenKey> {
  const query = options.view === undefined ? "" : `?view=${options.view}`;
  const body = (await call(
    roundUrl(base, round, `token-key${query}`),
    { method: "GET" },
    options,
  )) as TokenKeyResponse;
  return checkedKey(body, options);
}

const campaignUrl = (base: string, campaign: string, path: string): string =>
  `${base.replace(/\/+$/, "")}/v1/campaigns/${encodeURIComponent(campaign)}/${path}`;

/** The campaign's token key (for its campaign tokens), fetched, parsed and checked as `fetchTokenKey`'s. */
export async function fetchCampaignTokenKey(
  base: string,
  campaign: string,
  options: FetchTokenKeyOptions = {},
): Promise<TokenKey> {
  const body = (await call(
    campaignUrl(base, campaign, "token-key"),
    { method: "GET" },
    options,
  )) as TokenKeyResponse;
  return checkedKey(body, options);
}

/** Parse a token-key response (modulus from the key, key id = SHA-256(key), challenge digest). */
export async function readTokenKey(body: TokenKeyResponse): Promise<TokenKey> {
  if (body.tokenType !== TOKEN_TYPE) throw new Error(`token key: token type ${body.tokenType} is not 2`);
  const spki = bytesOf(body.publicKey, "publicKey");
  return {
    ...body,
    rsa: rsaKeyOfSpki(spki),
    keyId: await sha256(spki),
    challengeDigest: await sha256(bytesOf(body.challenge, "challenge")),
  };
}

/** One token in the making: the request to send, and `finish` for the issuer's answer. */
export interface PendingToken {
  /** Base64 TokenRequest: type (2 bytes), truncated key id (1), blinded message (256). */
  readonly request: string;
  /** Unblind and check the issuer's base64 TokenResponse; resolves with the base64 token. */
  finish(response: string): Promise<string>;
}

/**
 * Start one token (RFC 9578 §6.1): a fresh 32-byte nonce, token input = type ||
 * nonce || challenge digest || key id, blinded for the key. `random` fills random
 * bytes (default Web Crypto). About a millisecond.
 */
export async function beginToken(
  key: TokenKey,
  random?: (bytes: number) => Uint8Array,
): Promise<PendingToken> {
  const nonce = (random ?? ((n: number) => globalThis.crypto.getRandomValues(new Uint8Array(n))))(32);
  const input = concat(Uint8Array.of(0, TOKEN_TYPE), nonce, key.challengeDigest, key.keyId);
  const { blinded, state } = await blindMessage(input, key.rsa, random);
  const request = concat(Uint8Array.of(0, TOKEN_TYPE, key.keyId[31]!), blinded);
  return {
    request: encodeBase64(request),
    finish: async (response) => {
      const signature = finalizeSignature(bytesOf(response, "token response"), state, key.rsa);
      return encodeBase64(concat(input, signature));
    },
  };
}

/** Options of {@link obtainTokens}: HTTP options and what the issuer's attester reads. */
export interface ObtainTokensOptions extends FetchTokenKeyOptions {
  /** The device's attestation (a client key, or a device id for the test attester); none for the address attester. */
  readonly attestation?: string;
  /** A campaign round's tokens: the device's campaign token (base64), which pays instead of an attestation. */
  readonly campaignToken?: string;
  readonly random?: (bytes: number) => Uint8Array;
}

/**
 * `POST /v1/rounds/:id/tokens` with `count` blinded requests: the device's
 * tokens for the round (base64), at most its budget; throws
 * `CollectorResponseError` (401 `attestation-required`, 403 `quota-exhausted`, ...).
 */
export async function obtainTokens(
  base: string,
  key: TokenKey,
  count: number,
  options: ObtainTokensOptions = {},
): Promise<string[]> {
  const pending = await Promise.all(Array.from({ length: count }, () => beginToken(key, options.random)));
  const init = {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      requests: pending.map((p) => p.request),
      attestation: options.attestation,
      campaignToken: options.campaignToken,
    }),
  };
  const url =
    key.scope === "campaign" ? campaignUrl(base, key.round, "tokens") : roundUrl(base, key.round, "tokens");
  const body = (await call(url, init, options)) as { responses: string[] };
  return Promise.all(pending.map((p, i) => p.finish(body.responses[i]!)));
}

/**
 * A campaign round's tokens, the campaign way: the device's view is its campaign
 * token's (`campaignView`), fixed for the whole campaign; the round's key of that
 * view is fetched, and the campaign token pays (the issuer's quota per campaign
 * token and round). Resolves with the tokens and the view their reports must claim.
 */
export async function obtainCampaignRoundTokens(
  base: string,
  round: string,
  campaignToken: string,
  views: number,
  count = 1,
  options: Omit<ObtainTokensOptions, "campaignToken"> = {},
): Promise<{ view: number; tokens: string[] }> {
  const view = await campaignView(campaignToken, views);
  const key = await fetchTokenKey(base, round, { ...options, view });
  return { view, tokens: await obtainTokens(base, key, count, { ...options, campaignToken }) };
}

/**
 * The view a campaign token fixes for every round of its campaign: `viewOfToken`
 * of it (a hash of the issuer's signature: not the device's choice). O(1).
 */
export async function campaignView(campaignToken: string, views: number): Promise<number> {
  return viewOfToken(bytesOf(campaignToken, "campaign token"), views);
}

/** A report that spends a token: a wire report plus the token (base64). */
export interface TokenReport extends WireReport {
  readonly token: string;
}

/**
 * The report of `record` that spends `token`: its view is the token's
 * (`viewOfToken`; in a campaign round the campaign view, `options.view`, which the
 * token's key carries), its id the token's (`reportIdOfToken`), its value perturbed as
 * `createReport` does in that view. O(d + cells of the view) plus two digests.
 */
export async function createTokenReport(
  plan: CalmPlan,
  record: ArrayLike<number>,
  token: string,
  options: Omit<CreateReportOptions, "id"> = {},
): Promise<TokenReport> {
  const bytes = bytesOf(token, "token");
  if (bytes.length !== TOKEN_BYTES) throw new Error(`token: ${bytes.length} bytes, not ${TOKEN_BYTES}`);
  const view = options.view ?? (await viewOfToken(bytes, plan.views.length));
  const id = await reportIdOfToken(bytes);
  return { ...createReport(plan, record, { ...options, view, id }), token };
}
