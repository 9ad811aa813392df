import { createHash } from "node:crypto";
import { encodeBase64 } from "@calm-ldp/client";
import { TOKEN_BYTES, TOKEN_TYPE, VIEW_LABEL, viewOfDigest } from "@calm-ldp/client/tokens";
import type { FastifyInstance, FastifyReply } from "fastify";
import { decodeBase64 } from "../base64-decode.js";
import type { CorsPolicy } from "../cors.js";
import { reject } from "../errors.js";
import { ROUND_PARAMS } from "../schemas.js";
import type { Attester } from "./attester.js";
import { blindSign } from "./blind-sign.js";
import { tokenSignatureValid } from "./check-reports.js";
import { askedView, type IssuerRound, type RoundLookup, VIEW_QUERY } from "./issuer-rounds.js";
import { type TokenKeyring, viewKeyName, type WindowKey } from "./keyring.js";
import type { QuotaStore } from "./ledger.js";

export const TOKEN_KEY_ROUTE = "/v1/rounds/:id/token-key";
export const TOKENS_ROUTE = "/v1/rounds/:id/tokens";
export const CAMPAIGN_TOKEN_KEY_ROUTE = "/v1/campaigns/:id/token-key";
export const CAMPAIGN_TOKENS_ROUTE = "/v1/campaigns/:id/tokens";

/** What the issuer's routes need: an app, CORS, rounds, and the issuer's keys, quota and attester. */
export interface IssuerContext {
  readonly app: FastifyInstance;
  readonly cors: CorsPolicy;
  readonly refusePreflight: (reply: FastifyReply) => unknown;
  readonly rounds: RoundLookup;
  readonly keyring: TokenKeyring;
  readonly ledger: QuotaStore;
  readonly attester: Attester;
  /** Most token requests per POST. */
  readonly maxRequests: number;
  /** Round tokens per campaign token per round (a campaign round's quota). */
  readonly campaignRoundBudget: number;
}

const BASE64 = "^[A-Za-z0-9+/]*={0,2}$";
const sha256 = (bytes: Uint8Array) => new Uint8Array(createHash("sha256").update(bytes).digest());
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

const tokensBody = (maxRequests: number, campaignToken: boolean) => ({
  type: "object",
  required: ["requests"],
  additionalProperties: false,
  properties: {
    requests: {
      type: "array",
      minItems: 1,
      maxItems: maxRequests,
      items: { type: "string", maxLength: 1024, pattern: BASE64 },
    },
    attestation: { type: "string", maxLength: 1024 },
    ...(campaignToken ? { campaignToken: { type: "string", maxLength: 1024, pattern: BASE64 } } : {}),
  },
});

/**
 * The TokenRequests of a body decoded for `key`, or 400 `invalid-token-request`
 * naming the first bad one (length, type, truncated key id): checked before the
 * quota is taken, so a request for another key (another view) costs nothing and gets nothing.
 */
function decodeRequests(requests: readonly string[], key: WindowKey): Uint8Array[] {
  return requests.map((text, index) => {
    const bytes = decodeBase64(text, 3 + key.modulusBytes);
    if (!bytes)
      reject(
        400,
        "invalid-token-request",
        `token request ${index}: not the base64 of ${3 + key.modulusBytes} bytes`,
      );
    if (((bytes[0]! << 8) | bytes[1]!) !== TOKEN_TYPE || bytes[2] !== key.keyId[31])
      reject(400, "invalid-token-request", `token request ${index}: not a type-0x0002 request for this key`);
    return bytes;
  });
}

/**
 * A campaign token presented for a campaign round's tokens: a valid token of the
 * campaign's key (401 `campaign-token-required`, 403 `campaign-token-invalid`);
 * returns its view (the same derivation as a plain round's, `viewOfToken`, over
 * the campaign's m views) and its digest (the quota's identity). O(1) RSA check.
 */
function campaignView(text: string | undefined, key: WindowKey, views: number): { view: number; id: string } {
  if (text === undefined)
    reject(401, "campaign-token-required", "this round belongs to a campaign: send your `campaignToken`");
  const token = decodeBase64(text, TOKEN_BYTES);
  if (!token || !tokenSignatureValid(token, key))
    reject(403, "campaign-token-invalid", "the campaign token is not a valid token of this round's campaign");
  return {
    view: viewOfDigest(sha256(new Uint8Array([...VIEW_LABEL, ...token.subarray(98)])), views),
    id: hex(sha256(token)),
  };
}

/** Each decoded request blind-signed under `key` (base64, in order). O(requests) RSA private operations. */
const signAll = (key: WindowKey, decoded: readonly Uint8Array[]): string[] =>
  decoded.map((bytes, index) => encodeBase64(blindSign(key, bytes, index)));

/**
 * Tokens for an attested device in the window `id` (a plain round, or a
 * campaign's campaign tokens), under `id`'s key: the requests decoded for that key
 * (400 before any quota is taken), the attester's identity and budget for the
 * device, the quota taken (all or nothing, 403 `quota-exhausted`), then each
 * request blind-signed. O(requests) RSA private operations plus the ledger's write.
 */
async function attestedTokens(
  context: IssuerContext,
  id: string,
  requests: readonly string[],
  attestation: string | undefined,
  address: string,
): Promise<string[]> {
  const key = await context.keyring.keyFor(id);
  const decoded = decodeRequests(requests, key);
  const { identity, budget } = await context.attester.vouch({ attestation, address, round: id });
  await context.ledger.take(id, identity, decoded.length, budget);
  return signAll(key, decoded);
}

/**
 * The issuer's endpoints (public, CORS like the plan and report endpoints):
 * - `GET /v1/rounds/:id/token-key[?view=v]`: `{round, tokenType: 2, publicKey, challenge, attester, scope: "round"}`
 *   (base64 SubjectPublicKeyInfo and TokenChallenge); a campaign round has one key
 *   per view (`view` required, 400 `view-required`), with `campaign` and `view`; 409 `round-closed` once closed;
 * - `POST /v1/rounds/:id/tokens` `{requests: [base64 TokenRequest], attestation?, campaignToken?}`:
 *   a plain round: the attester vouches (identity, budget), the quota is taken
 *   (all or nothing, 403 `quota-exhausted`), each request is blind-signed ->
 *   `{responses}`; a campaign round: no attestation but the device's campaign
 *   token, whose view selects the key and whose digest is the quota's identity
 *   (`campaignRoundBudget` per round) -> `{responses, view}`;
 * - `GET /v1/campaigns/:id/token-key`, `POST /v1/campaigns/:id/tokens`: the
 *   campaign tokens, one window per campaign, the attester's budget per campaign.
 * Issuance O(requests) RSA private operations (~1 ms each) plus the ledger's write.
 */
export function registerIssuer(context: IssuerContext): void {
  const { app, cors, rounds, keyring, ledger, attester } = context;
  const open = async (found: Promise<IssuerRound>): Promise<IssuerRound> => {
    const round = await found;
    if (!round.open) {
      await ledger.forget(round.id); // its tokens are worthless now: the window's counts go
      reject(409, "round-closed", `round ${round.id} is closed: no more tokens`);
    }
    return round;
  };
  for (const [route, method] of [
    [TOKEN_KEY_ROUTE, "GET"],
    [TOKENS_ROUTE, "POST"],
    [CAMPAIGN_TOKEN_KEY_ROUTE, "GET"],
    [CAMPAIGN_TOKENS_ROUTE, "POST"],
  ] as const)
    app.options(route, (request, reply) =>
      cors.preflight(request, reply, method) ? reply.send() : context.refusePreflight(reply),
    );
  const describe = (key: WindowKey, fields: Record<string, unknown>) => ({
    tokenType: TOKEN_TYPE,
    publicKey: encodeBase64(key.publicKeyBytes),
    challenge: encodeBase64(key.challenge),
    attester: attester.name,
    ...fields,
  });
  app.get<{ Params: { id: string }; Querystring: { view?: string } }>(
    TOKEN_KEY_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS, querystring: VIEW_QUERY } },
    async (request) => {
      const round = await open(rounds.round(request.params.id));
      if (round.campaign === undefined)
        return describe(await keyring.keyFor(round.id), { round: round.id, scope: "round" });
      const view = askedView(round, request.query.view);
      const key = await keyring.keyFor(viewKeyName(round.id, view), round.id);
      return describe(key, { round: round.id, scope: "round", campaign: round.campaign, view });
    },
  );
  app.post<{
    Params: { id: string };
    Body: { requests: string[]; attestation?: string; campaignToken?: string };
  }>(
    TOKENS_ROUTE,
    {
      onRequest: cors.decorate,
      schema: { params: ROUND_PARAMS, body: tokensBody(context.maxRequests, true) },
    },
    async (request) => {
      const round = await open(rounds.round(request.params.id));
      const { requests, attestation, campaignToken } = request.body;
      if (round.campaign === undefined)
        return { responses: await attestedTokens(context, round.id, requests, attestation, request.ip) };
      const { view, id } = campaignView(campaignToken, await keyring.keyFor(round.campaign), round.views);
      const key = await keyring.keyFor(viewKeyName(round.id, view), round.id);
      const decoded = decodeRequests(requests, key);
      await ledger.take(round.id, `campaign-token:${id}`, decoded.length, context.campaignRoundBudget);
      return { responses: signAll(key, decoded), view };
    },
  );
  app.get<{ Params: { id: string } }>(
    CAMPAIGN_TOKEN_KEY_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const campaign = await open(rounds.campaign(request.params.id));
      return describe(await keyring.keyFor(campaign.id), {
        round: campaign.id,
        scope: "campaign",
        views: campaign.views,
      });
    },
  );
  app.post<{ Params: { id: string }; Body: { requests: string[]; attestation?: string } }>(
    CAMPAIGN_TOKENS_ROUTE,
    {
      onRequest: cors.decorate,
      schema: { params: ROUND_PARAMS, body: tokensBody(context.maxRequests, false) },
    },
    async (request) => {
      const campaign = await open(rounds.campaign(request.params.id));
      const { requests, attestation } = request.body;
      return { responses: await attestedTokens(context, campaign.id, requests, attestation, request.ip) };
    },
  );
}
