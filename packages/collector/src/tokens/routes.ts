import { encodeBase64 } from "@calm-ldp/client";
import { TOKEN_TYPE } from "@calm-ldp/client/tokens";
import type { StoredRound } from "../api.js";
import { decodeBase64 } from "../base64-decode.js";
import type { CollectorContext } from "../collector-context.js";
import { reject } from "../errors.js";
import { ROUND_PARAMS } from "../schemas.js";
import { QuotaLedger } from "./attester.js";
import { blindSign } from "./blind-sign.js";
import { checkTokenReports } from "./check-reports.js";
import { TokenKeyring } from "./keyring.js";
import type { TokenProtection } from "./protection.js";

export type { TokenProtection } from "./protection.js";

/** The report path's hook: refuse a batch whose tokens do not check out (see `checkTokenReports`). */
export type ReportGate = (
  round: StoredRound,
  reports: readonly { id: string; view: number; token?: string }[],
) => Promise<void>;

export const TOKEN_KEY_ROUTE = "/v1/rounds/:id/token-key";
export const TOKENS_ROUTE = "/v1/rounds/:id/tokens";

const BASE64 = "^[A-Za-z0-9+/]*={0,2}$";

/**
 * The issuer's endpoints (public, CORS like the plan and report endpoints):
 * - `GET /v1/rounds/:id/token-key`: `{round, tokenType: 2, publicKey, challenge, attester}`
 *   (base64 SubjectPublicKeyInfo and TokenChallenge); 409 `round-closed` once closed;
 * - `POST /v1/rounds/:id/tokens` `{requests: [base64 TokenRequest], attestation?}`:
 *   the attester vouches (identity, budget), the quota is taken (all or nothing,
 *   403 `quota-exhausted`), each request is blind-signed -> `{responses}`.
 * Returns the report gate the report endpoint calls. Issuance O(requests) RSA
 * private operations (~1 ms each).
 */
export function registerTokens(context: CollectorContext, protection: TokenProtection): ReportGate {
  const { app, cors, findRound, storage } = context;
  const keyring = new TokenKeyring(protection.issuerName ?? "calm-ldp", protection.keyDir);
  const ledger = new QuotaLedger();
  const maxRequests = protection.maxRequests ?? 100;
  const openRound = async (id: string) => {
    const round = await findRound(id);
    if ((await storage.roundState(round)).closedAt !== null)
      reject(409, "round-closed", `round ${round.id} is closed: no more tokens`);
    return round;
  };

  app.options(TOKEN_KEY_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "GET") ? reply.send() : context.refusePreflight(reply),
  );
  app.options(TOKENS_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "POST") ? reply.send() : context.refusePreflight(reply),
  );
  app.get<{ Params: { id: string } }>(
    TOKEN_KEY_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const round = await openRound(request.params.id);
      const key = await keyring.keyFor(round.id);
      return {
        round: round.id,
        tokenType: TOKEN_TYPE,
        publicKey: encodeBase64(key.publicKeyBytes),
        challenge: encodeBase64(key.challenge),
        attester: protection.attester.name,
      };
    },
  );
  app.post<{ Params: { id: string }; Body: { requests: string[]; attestation?: string } }>(
    TOKENS_ROUTE,
    {
      onRequest: cors.decorate,
      schema: {
        params: ROUND_PARAMS,
        body: {
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
          },
        },
      },
    },
    async (request) => {
      const round = await openRound(request.params.id);
      const key = await keyring.keyFor(round.id);
      const { requests, attestation } = request.body;
      const decoded = requests.map((text, index) => {
        const bytes = decodeBase64(text, 3 + key.modulusBytes);
        if (!bytes)
          reject(
            400,
            "invalid-token-request",
            `token request ${index}: not the base64 of ${3 + key.modulusBytes} bytes`,
          );
        return bytes;
      });
      const { identity, budget } = await protection.attester.vouch({
        attestation,
        address: request.ip,
        round: round.id,
      });
      ledger.take(round.id, identity, decoded.length, budget);
      return { responses: decoded.map((bytes, index) => encodeBase64(blindSign(key, bytes, index))) };
    },
  );
  return async (round, reports) =>
    checkTokenReports(await keyring.keyFor(round.id), round.plan.views.length, reports);
}
