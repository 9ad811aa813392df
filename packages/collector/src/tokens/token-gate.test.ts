import { randomUUID } from "node:crypto";
import { encodeBase64 } from "@calm-ldp/client";
import { describe, expect, it } from "vitest";
import { TokenKeyring } from "./keyring.js";
import { RemoteKeys } from "./token-gate.js";

/** A fetch that answers every request with `body` (status 200 unless given). */
const answering =
  (body: unknown, status = 200): typeof fetch =>
  async () =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("the collector's keys of an issuer apart (RemoteKeys)", () => {
  it("takes the issuer's key of the round: same key id and challenge as the issuer's own", async () => {
    const round = randomUUID();
    const key = await new TokenKeyring("calm-ldp").keyFor(round);
    const body = { publicKey: encodeBase64(key.publicKeyBytes), challenge: encodeBase64(key.challenge) };
    const remote = await new RemoteKeys("http://issuer.invalid", answering(body)).keyFor(round);
    expect(remote.keyId).toEqual(key.keyId);
    expect(remote.challengeDigest).toEqual(key.challengeDigest);
  });

  it("refuses a key whose challenge names another round, an unreachable issuer, and garbage (503 issuer-unavailable)", async () => {
    const round = randomUUID();
    const other = await new TokenKeyring("calm-ldp").keyFor(randomUUID());
    const misnamed = {
      publicKey: encodeBase64(other.publicKeyBytes),
      challenge: encodeBase64(other.challenge),
    };
    const unavailable = { statusCode: 503, reason: "issuer-unavailable" };
    await expect(new RemoteKeys("http://i.invalid", answering(misnamed)).keyFor(round)).rejects.toMatchObject(
      unavailable,
    );
    await expect(
      new RemoteKeys("http://i.invalid", answering({ reason: "round-closed" }, 409)).keyFor(round),
    ).rejects.toMatchObject(unavailable);
    const refused: typeof fetch = async () => {
      throw new TypeError("fetch failed");
    };
    await expect(new RemoteKeys("http://i.invalid", refused).keyFor(round)).rejects.toMatchObject(
      unavailable,
    );
    const key = await new TokenKeyring("calm-ldp").keyFor(round);
    const garbage = { publicKey: encodeBase64(new Uint8Array(40)), challenge: encodeBase64(key.challenge) };
    await expect(new RemoteKeys("http://i.invalid", answering(garbage)).keyFor(round)).rejects.toMatchObject(
      unavailable,
    );
  });
});
