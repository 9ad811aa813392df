import { constants, privateDecrypt, publicEncrypt } from "node:crypto";
import { TOKEN_TYPE } from "@calm-ldp/client/tokens";
import { reject } from "../errors.js";
import type { WindowKey } from "./keyring.js";

/**
 * The issuer's step (RFC 9474 §4.3 BlindSign, RFC 9578 §6.2): check a
 * TokenRequest (type 0x0002, truncated key id = last byte of the window's key id,
 * a blinded message below the modulus) and answer s = z^d mod n, checked by
 * s^e mod n = z before it leaves. Raw RSA through OpenSSL (`privateDecrypt` without
 * padding, CRT): about a millisecond for RSA-2048, where @cloudflare/privacypass-ts's
 * own issuer (BigInt code) takes ~0.5 s per token on Node 20. Throws
 * `RequestRejectedError` 400 `invalid-token-request` naming the problem.
 */
export function blindSign(key: WindowKey, request: Uint8Array, index: number): Uint8Array {
  const where = `token request ${index}`;
  if (request.length !== 3 + key.modulusBytes)
    reject(400, "invalid-token-request", `${where}: ${request.length} bytes, not ${3 + key.modulusBytes}`);
  if (((request[0]! << 8) | request[1]!) !== TOKEN_TYPE)
    reject(400, "invalid-token-request", `${where}: token type is not 0x0002`);
  if (request[2] !== key.keyId[31])
    reject(400, "invalid-token-request", `${where}: truncated key id names another key than this round's`);
  const blinded = request.subarray(3);
  let signature: Buffer;
  try {
    signature = privateDecrypt({ key: key.privateKey, padding: constants.RSA_NO_PADDING }, blinded);
  } catch {
    reject(400, "invalid-token-request", `${where}: blinded message is not below the modulus`);
  }
  const check = publicEncrypt({ key: key.publicKey, padding: constants.RSA_NO_PADDING }, signature);
  if (!check.equals(blinded)) throw new Error("blind signature failed its own check (fault): not sent");
  return new Uint8Array(signature);
}
