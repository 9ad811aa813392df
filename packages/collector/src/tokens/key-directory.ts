import { encodeBase64 } from "@calm-ldp/client";
import { TOKEN_TYPE } from "@calm-ldp/client/tokens";
import type { FastifyInstance, FastifyReply } from "fastify";
import type { CorsPolicy } from "../cors.js";
import { reject } from "../errors.js";
import { ROUND_PARAMS } from "../schemas.js";
import { askedView, type RoundLookup, VIEW_QUERY } from "./issuer-rounds.js";
import type { VerifyKey } from "./keyring.js";

export const ROUND_DIRECTORY_ROUTE = "/v1/rounds/:id/token-directory";
export const CAMPAIGN_DIRECTORY_ROUTE = "/v1/campaigns/:id/token-directory";

/** Where a key directory's keys come from: the issuer's keyring, or (a collector apart) the issuer's public keys it verifies with. */
export interface DirectoryKeys {
  /** The key of round `round` (of view `view` in a campaign round). */
  keyFor(round: string, view?: number): Promise<VerifyKey>;
  /** The key that signs campaign `campaign`'s campaign tokens. */
  campaignKeyFor(campaign: string): Promise<VerifyKey>;
}

/** One key of a directory: what a device compares its key with. */
export interface DirectoryEntry {
  readonly tokenType: number;
  /** Hex SHA-256 of the key (SubjectPublicKeyInfo): the token_key_id every token of the key carries. */
  readonly keyId: string;
  /** Base64 TokenChallenge of the window: tokens carry its SHA-256 too. */
  readonly challenge: string;
}

/** What registerKeyDirectory needs. */
export interface KeyDirectoryContext {
  readonly app: FastifyInstance;
  readonly cors: CorsPolicy;
  readonly refusePreflight: (reply: FastifyReply) => unknown;
  readonly rounds: RoundLookup;
  readonly keys: DirectoryKeys;
}

const entry = (key: VerifyKey): DirectoryEntry => ({
  tokenType: TOKEN_TYPE,
  keyId: Buffer.from(key.keyId).toString("hex"),
  challenge: encodeBase64(key.challenge),
});

/**
 * The key directory of a window (key consistency, RFC 9576 §6.2): public, CORS,
 * served by the issuer and by the collector alike, so a device can compare the
 * key the issuer handed it with what a second origin says every device gets:
 * - `GET /v1/rounds/:id/token-directory[?view=v]` -> `{round, scope: "round",
 *   keys: [{tokenType: 2, keyId, challenge}]}`; a campaign round's key is per view
 *   (`view` required, 400 `view-required`; the answer adds `campaign`, `view`);
 *   409 `round-closed` once closed;
 * - `GET /v1/campaigns/:id/token-directory` -> the campaign-token key, `scope: "campaign"`.
 * `keyId` is the hex SHA-256 of the key's SubjectPublicKeyInfo (the token_key_id
 * of RFC 9578), `challenge` the window's TokenChallenge: both are in every token,
 * so two devices with different entries hold linkable tokens. A collector with
 * the issuer apart serves the keys it verifies reports with (fetched from the
 * issuer once, then kept: the first key it saw is the one it accepts). One key
 * lookup per request.
 */
export function registerKeyDirectory(context: KeyDirectoryContext): void {
  const { app, cors, rounds, keys } = context;
  for (const route of [ROUND_DIRECTORY_ROUTE, CAMPAIGN_DIRECTORY_ROUTE])
    app.options(route, (request, reply) =>
      cors.preflight(request, reply, "GET") ? reply.send() : context.refusePreflight(reply),
    );
  app.get<{ Params: { id: string }; Querystring: { view?: string } }>(
    ROUND_DIRECTORY_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS, querystring: VIEW_QUERY } },
    async (request) => {
      const round = await rounds.round(request.params.id);
      if (!round.open) reject(409, "round-closed", `round ${round.id} is closed: no more tokens`);
      if (round.campaign === undefined)
        return { round: round.id, scope: "round", keys: [entry(await keys.keyFor(round.id))] };
      const view = askedView(round, request.query.view);
      const key = await keys.keyFor(round.id, view);
      return { round: round.id, scope: "round", campaign: round.campaign, view, keys: [entry(key)] };
    },
  );
  app.get<{ Params: { id: string } }>(
    CAMPAIGN_DIRECTORY_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const campaign = await rounds.campaign(request.params.id);
      const key = await keys.campaignKeyFor(campaign.id);
      return { round: campaign.id, scope: "campaign", keys: [entry(key)] };
    },
  );
}
