import { join } from "node:path";
import { createReport, encodeBase64, type WireReport } from "@calm-ldp/client";
import {
  createTokenReport,
  fetchTokenKey,
  obtainTokens,
  reportIdOfToken,
  rsaKeyOfSpki,
  type TokenReport,
  toBytes,
  viewOfToken,
} from "@calm-ldp/client/tokens";
import { publicVerif, Token, TokenChallenge } from "@cloudflare/privacypass-ts";
import { describe, expect, it } from "vitest";
import { decodeBase64 } from "../src/base64-decode.js";
import { testAttester } from "../src/index.js";
import { call, duckdbCollectors, mixedRound, suiteProcesses } from "./support.js";

const post = (url: string, round: string, reports: readonly WireReport[]) =>
  call(`${url}/v1/rounds/${round}/reports`, "POST", { round, reports }, undefined);
const counts = async (url: string, round: string) =>
  (await call(`${url}/v1/rounds/${round}/status`, "GET")).body as {
    accepted: number;
    perView: number[];
    rejected: Record<string, number>;
  };

describe("protected mode (tokens): every report spends one valid token", () => {
  const collectors = duckdbCollectors();
  // A record of mixedRecords' schema (cardinalities 2, 2, 4, 3, 2, 4, 3, 2).
  const record = [0, 1, 2, 1, 0, 3, 2, 1];

  it("refuses reports without a valid unspent token (401/403 with a reason), counts unchanged", async () => {
    const { collector } = await collectors.start("refuse.duckdb", { tokens: { attester: testAttester() } });
    const { round, plan } = await mixedRound(collector.url, 5000, 1);
    const key = await fetchTokenKey(collector.url, round);
    // No token at all.
    const plain = createReport(plan, record);
    expect((await post(collector.url, round, [plain])).body).toMatchObject({
      statusCode: 401,
      reason: "token-required",
    });
    const [t] = await obtainTokensFor(collector.url, key, "device-b", 1);
    const good = await createTokenReport(plan, record, t!);
    // Another view than the token's: refused, whatever the client prefers.
    const otherView = {
      ...createReport(plan, record, { view: (good.view + 1) % plan.m, id: good.id }),
      token: t,
    };
    expect((await post(collector.url, round, [otherView])).body).toMatchObject({
      statusCode: 403,
      reason: "token-view-mismatch",
    });
    // A forged authenticator (last byte flipped): the signature does not verify.
    const bytes = decodeBase64(t!, 354)!;
    bytes[353]! ^= 1;
    const forged = { ...good, token: encodeBase64(bytes) };
    expect((await post(collector.url, round, [forged])).body).toMatchObject({ statusCode: 403 });
    // A token of another round.
    const other = await mixedRound(collector.url, 5000, 2);
    const otherKey = await fetchTokenKey(collector.url, other.round);
    const [foreign] = await obtainTokensFor(collector.url, otherKey, "device-c", 1);
    const misplaced = await createTokenReport(plan, record, foreign!);
    expect((await post(collector.url, round, [misplaced])).body).toMatchObject({
      statusCode: 403,
      reason: "token-wrong-round",
    });
    // All or nothing: a good report beside a bad one is not counted either.
    expect((await post(collector.url, round, [good, plain])).status).toBe(401);
    expect((await counts(collector.url, round)).accepted).toBe(0);
    // The good one alone is counted once; spent again (another perturbation) it is not counted again.
    expect((await post(collector.url, round, [good])).body).toMatchObject({ stored: 1, duplicates: 0 });
    const again = await createTokenReport(plan, record, t!);
    expect((await post(collector.url, round, [again])).body).toMatchObject({ stored: 0, duplicates: 1 });
    const status = await counts(collector.url, round);
    expect(status.accepted).toBe(1);
    expect(status.perView[good.view]).toBe(1);
    expect(status.rejected).toMatchObject({
      "token-required": 3,
      "token-view-mismatch": 1,
      "token-wrong-round": 1,
    });
  });

  it("a Sybil gets no more tokens than its quota per round (403 quota-exhausted), all or nothing", async () => {
    const { collector } = await collectors.start("quota.duckdb", { tokens: { attester: testAttester(2) } });
    const { round } = await mixedRound(collector.url, 5000, 1);
    const key = await fetchTokenKey(collector.url, round);
    await expect(obtainTokensFor(collector.url, key, "sybil", 3)).rejects.toMatchObject({
      status: 403,
      reason: "quota-exhausted",
    });
    expect(await obtainTokensFor(collector.url, key, "sybil", 2)).toHaveLength(2);
    await expect(obtainTokensFor(collector.url, key, "sybil", 1)).rejects.toMatchObject({
      reason: "quota-exhausted",
    });
    await expect(obtainTokens(collector.url, key, 1)).rejects.toMatchObject({
      status: 401,
      reason: "attestation-required",
    });
  });

  it("tokens interoperate with @cloudflare/privacypass-ts (its client's token is accepted, ours verify under its origin)", async () => {
    const { collector } = await collectors.start("interop.duckdb", { tokens: { attester: testAttester() } });
    const { round, plan } = await mixedRound(collector.url, 5000, 1);
    const key = await fetchTokenKey(collector.url, round);
    const [ours] = await obtainTokensFor(collector.url, key, "ours", 1);
    const spki = new Uint8Array(Buffer.from(key.publicKey, "base64"));
    // Node's Web Crypto does not import the RSASSA-PSS key form: give it the key as a JWK.
    const rsa = rsaKeyOfSpki(spki);
    const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
    const jwk = { kty: "RSA", n: b64url(toBytes(rsa.n, rsa.bytes)), e: b64url(toBytes(rsa.e, 3)) };
    const pk = await crypto.subtle.importKey("jwk", jwk, { name: "RSA-PSS", hash: "SHA-384" }, true, [
      "verify",
    ]);
    const origin = new publicVerif.Origin(publicVerif.BlindRSAMode.PSS);
    expect(await origin.verify(Token.deserialize(publicVerif.BLIND_RSA, decodeBase64(ours!, 354)!), pk)).toBe(
      true,
    );
    // A token whose authenticator was altered does not verify there either (the check can fail).
    const altered = decodeBase64(ours!, 354)!;
    altered[200]! ^= 4;
    expect(await origin.verify(Token.deserialize(publicVerif.BLIND_RSA, altered), pk)).toBe(false);
    // Their client, our issuer and collector.
    const challenge = TokenChallenge.deserialize(new Uint8Array(Buffer.from(key.challenge, "base64")));
    const theirs = new publicVerif.Client(publicVerif.BlindRSAMode.PSS);
    const request = await theirs.createTokenRequest(challenge, spki);
    const { body } = await call(
      `${collector.url}/v1/rounds/${round}/tokens`,
      "POST",
      { requests: [encodeBase64(request.serialize())], attestation: "theirs" },
      undefined,
    );
    const response = theirs.deserializeTokenResponse(decodeBase64((body.responses as string[])[0]!, 256)!);
    const token = encodeBase64((await theirs.finalize(response)).serialize());
    const report = await createTokenReport(plan, record, token);
    expect((await post(collector.url, round, [report])).body).toMatchObject({ stored: 1 });
  });

  const processes = suiteProcesses();
  it("a token spent once is not counted again by another collector process after a restart", async () => {
    const file = join(collectors.dir, "restart.duckdb");
    const keyDir = join(collectors.dir, "keys");
    process.env.CALM_LDP_TOKEN_KEY_DIR = keyDir;
    try {
      const first = await processes.spawn("duckdb", file);
      const { round, plan } = await mixedRound(first.url, 5000, 1);
      const key = await fetchTokenKey(first.url, round);
      const [t] = await obtainTokensFor(first.url, key, "device", 1);
      const report: TokenReport = await createTokenReport(plan, record, t!);
      expect((await post(first.url, round, [report])).body).toMatchObject({ stored: 1 });
      await first.kill("SIGTERM");
      const second = await processes.spawn("duckdb", file);
      // The same token with another perturbation (an attacker re-spending it): not counted.
      const respent = await createTokenReport(plan, record, t!);
      expect((await post(second.url, round, [respent])).body).toMatchObject({ stored: 0, duplicates: 1 });
      expect((await counts(second.url, round)).accepted).toBe(1);
      // The second process verifies the round's tokens with the same key (a fresh token still works).
      const [fresh] = await obtainTokensFor(
        second.url,
        await fetchTokenKey(second.url, round),
        "device-2",
        1,
      );
      expect(
        (await post(second.url, round, [await createTokenReport(plan, record, fresh!)])).body,
      ).toMatchObject({ stored: 1 });
      await second.kill("SIGTERM");
    } finally {
      delete process.env.CALM_LDP_TOKEN_KEY_DIR;
    }
  });

  it("the view and report id follow from the token alone (same on both sides)", async () => {
    const token = new Uint8Array(354).map((_, i) => (i * 7) & 0xff);
    expect(await viewOfToken(token, 28)).toBe(await viewOfToken(token.slice(), 28));
    expect(await reportIdOfToken(token)).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

function obtainTokensFor(
  url: string,
  key: Awaited<ReturnType<typeof fetchTokenKey>>,
  device: string,
  count: number,
) {
  return obtainTokens(url, key, count, { attestation: device });
}
