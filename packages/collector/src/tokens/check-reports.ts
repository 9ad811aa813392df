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
import type { WindowKey } from "./keyring.js";

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A report as it arrives in protected mode: its id, view and token (other fields checked elsewhere). */
interface TokenWire {
  readonly id: string;
  readonly view: number;
  readonly token?: string;
}

const sha256 = (label: Uint8Array, bytes: Uint8Array) =>
  new Uint8Array(createHash("sha256").update(label).update(bytes).digest());

/**
 * Check every report of a batch against the round's token key, all or nothing:
 * a token is present (401 `token-required`), is a canonical base64 type-0x0002
 * token of this round's challenge and key (403 `token-invalid`, `token-wrong-round`),
 * its RSA-PSS signature verifies (403 `token-invalid`), and the report's view and
 * id are the ones the token fixes (403 `token-view-mismatch`, `token-id-mismatch`).
 * A token already spent is not caught here but by its report id: the storage
 * de-duplicates ids across collector processes and restarts. O(1) RSA verification
 * (e = 65537) and three hashes per report.
 */
export function checkTokenReports(key: WindowKey, views: number, reports: readonly TokenWire[]): void {
  for (const [index, report] of reports.entries()) {
    const where = `report ${index}`;
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
    if (!equal(token.subarray(66, 98), key.keyId))
      reject(403, "token-invalid", `${where}: the token names another key than this round's`);
    const signed = verify(
      "sha384",
      token.subarray(0, 98),
      { key: key.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 },
      token.subarray(98),
    );
    if (!signed) reject(403, "token-invalid", `${where}: the token's signature does not verify`);
    // The client's derivations (viewOfToken, reportIdOfToken) with synchronous hashing.
    const view = viewOfDigest(sha256(VIEW_LABEL, token.subarray(TOKEN_INPUT_BYTES)), views);
    if (report.view !== view)
      reject(
        403,
        "token-view-mismatch",
        `${where}: the token fixes view ${view}, the report claims ${report.view}`,
      );
    if (report.id !== reportIdOfDigest(sha256(ID_LABEL, token)))
      reject(403, "token-id-mismatch", `${where}: the report id must be the token's (reportIdOfToken)`);
  }
}
