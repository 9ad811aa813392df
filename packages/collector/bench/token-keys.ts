/**
 * A round's token key on both sides in one process, for the token benches: the
 * collector's (`TokenKeyring.keyFor`, an RSA-2048 key the first time a round is
 * named) and the client's, read from the fields `GET /v1/rounds/:id/token-key`
 * would send (`readTokenKey`: the SubjectPublicKeyInfo parsed, the key id hashed).
 */
import { encodeBase64 } from "@calm-ldp/client";
import { readTokenKey, type TokenKey } from "@calm-ldp/client/tokens";
import type { TokenKeyring, WindowKey } from "../src/tokens/keyring.js";

/** `round`'s key in `keyring` (the collector's side) and as a client reads it. */
export async function roundTokenKeys(
  keyring: TokenKeyring,
  round: string,
): Promise<{ key: WindowKey; clientKey: TokenKey }> {
  const key = await keyring.keyFor(round);
  const clientKey = await readTokenKey({
    round,
    tokenType: 2,
    publicKey: encodeBase64(key.publicKeyBytes),
    challenge: encodeBase64(key.challenge),
    attester: "test",
  });
  return { key, clientKey };
}
