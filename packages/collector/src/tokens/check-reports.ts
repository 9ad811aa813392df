import { constants, createHash, verify } from "node:crypto";
import {
  ID_LABEL,
  reportIdOfDigest,
  TOKEN_BYTES,
  TOKEN_INPUT_BYTES,
  TOKEN_TYPE,
  VIEW_LABEL,
  viewOfDigest,
} from "@calm-ldp/client/tokens";
import { decodeBase64 } from "../base64-decode.js";
import { reject } from "../errors.js";
import type { VerifyKey } from "./keyring.js";

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A report as it arrives in protected mode: its id, view and token (other fields checked elsewhere). */
interface TokenWire {
  readonly id: string;
  readonly view: number;
  readonly token?: string;
}

const sha256 = (label: Uint8Array, bytes: Uint8Array) =>
  new Uint8Array(createHash("sha256").update(label).update(bytes).digest());

/** The token's RSA-PSS (SHA-384, 48-byte salt) signature over its first 98 bytes verifies under `key`. */
function verifySignature(token: Uint8Array, key: VerifyKey): boolean {
  return verify(
    "sha384",
    token.subarray(0, TOKEN_INPUT_BYTES),
    { key: key.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 },
    token.subarray(TOKEN_INPUT_BYTES),
  );
}

/**
 * A whole token (bytes) of `key`: type 0x0002, the key's challenge and key id, a
 * signature that verifies. For tokens that are not spent on reports (a device's
 * campaign token, shown to the issuer). O(1) RSA verification.
 */
export function tokenSignatureValid(token: Uint8Array, key: VerifyKey): boolean {
  return (
    token.length === TOKEN_BYTES &&
    ((token[0]! << 8) | token[1]!) === TOKEN_TYPE &&
    equal(token.subarray(34, 66), key.challengeDigest) &&
    equal(token.subarray(66, 98), key.keyId) &&
    verifySignature(token, key)
  );
}

/**
 * One report's token checked against `key`: present (401 `token-required`), the
 * canonical base64 of a type-0x0002 token (403 `token-invalid`), of this round's
 * challenge (403 `token-wrong-round`), naming `key` (403 `wrongKey`), with an
 * RSA-PSS signature that verifies (403 `token-invalid`), and the report's id the
 * token's (403 `token-id-mismatch`). Returns the token's bytes.
 */
function checkToken(
  where: string,
  report: TokenWire,
  key: VerifyKey,
  wrongKey: [string, string],
): Uint8Array {
  if (typeof report.token !== "string")
    reject(
      401,
      "token-required",
      `${where}: this collector takes only reports that spend a token (field "token")`,
    );
  const token = decodeBase64(report.token, TOKEN_BYTES);
  if (!token || ((token[0]! << 8) | token[1]!) !== TOKEN_TYPE)
    reject(
      403,
      "token-invalid",
      `${where}: token is not the base64 of a ${TOKEN_BYTES}-byte type-0x0002 token`,
    );
  if (!equal(token.subarray(34, 66), key.challengeDigest))
    reject(403, "token-wrong-round", `${where}: the token was issued for another round`);
  if (!equal(token.subarray(66, 98), key.keyId)) reject(403, wrongKey[0], `${where}: ${wrongKey[1]}`);
  if (!verifySignature(token, key))
    reject(403, "token-invalid", `${where}: the token's signature does not verify`);
  if (report.id !== reportIdOfDigest(sha256(ID_LABEL, token)))
    reject(403, "token-id-mismatch", `${where}: the report id must be the token's (reportIdOfToken)`);
  return token;
}

/**
 * Check every report of a plain round's batch against the round's token key,
 * all or nothing (see `checkToken`), and each report's view against the one its
 * token fixes (403 `token-view-mismatch`): floor(m u) for u the first 48 bits of
 * SHA-256("calm-ldp token view v1" || authenticator) / 2^48. A token already spent
 * is not caught here but by its report id: the storage de-duplicates ids across
 * collector processes and restarts. O(1) RSA verification (e = 65537) and three
 * hashes per report.
 */
export function checkTokenReports(key: VerifyKey, views: number, reports: readonly TokenWire[]): void {
  for (const [index, report] of reports.entries()) {
    const where = `report ${index}`;
    const token = checkToken(where, report, key, [
      "token-invalid",
      "the token names another key than this round's",
    ]);
    // The client's derivation (viewOfToken) with synchronous hashing.
    const view = viewOfDigest(sha256(VIEW_LABEL, token.subarray(TOKEN_INPUT_BYTES)), views);
    if (report.view !== view)
      reject(
        403,
        "token-view-mismatch",
        `${where}: the token fixes view ${view}, the report claims ${report.view}`,
      );
  }
}

/**
 * Check every report of a campaign round's batch, all or nothing: a campaign
 * round has one key per view (the device's campaign view, fixed by its campaign
 * token, is public metadata carried by the key the issuer signs with), so the
 * report's claimed view selects the key (`keyOfView`, an integer view in
 * [0, views) else 403 `token-view-mismatch`) and a token signed with another
 * view's key (or another issuer's) is 403 `token-view-mismatch`; the rest as
 * `checkToken`. Same cost as `checkTokenReports`.
 */
export function checkViewTokenReports(
  keyOfView: (view: number) => VerifyKey,
  views: number,
  reports: readonly TokenWire[],
): void {
  for (const [index, report] of reports.entries()) {
    const where = `report ${index}`;
    if (!(Number.isInteger(report.view) && report.view >= 0 && report.view < views))
      reject(403, "token-view-mismatch", `${where}: view ${report.view} is not a view of this round`);
    checkToken(where, report, keyOfView(report.view), [
      "token-view-mismatch",
      `the token was not signed with this round's key of view ${report.view} (the device's campaign view)`,
    ]);
  }
}
