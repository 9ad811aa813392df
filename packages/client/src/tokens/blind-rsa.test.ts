import { constants, generateKeyPairSync, privateDecrypt, randomBytes, verify } from "node:crypto";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { blindMessage, finalizeSignature, toBytes } from "./blind-rsa.js";
import { rsaKeyOfSpki, TOKEN_BYTES, viewOfToken } from "./wire.js";

const keyPair = () => generateKeyPairSync("rsa", { modulusLength: 2048 });
const sign = (privateKey: ReturnType<typeof keyPair>["privateKey"], blinded: Uint8Array) =>
  new Uint8Array(privateDecrypt({ key: privateKey, padding: constants.RSA_NO_PADDING }, blinded));

describe("blind RSA (RFC 9474 RSABSSA-SHA384-PSS) client side", () => {
  const { publicKey, privateKey } = keyPair();
  const key = rsaKeyOfSpki(new Uint8Array(publicKey.export({ type: "spki", format: "der" })));

  it("parses the key's modulus and exponent", () => {
    const jwk = publicKey.export({ format: "jwk" });
    expect(key.e).toBe(65537n);
    expect(toBytes(key.n, key.bytes)).toEqual(new Uint8Array(Buffer.from(jwk.n!, "base64url")));
  });

  it("a blinded, signed, unblinded message is a valid RSA-PSS (SHA-384, 48-byte salt) signature of it", async () => {
    const message = new Uint8Array(randomBytes(98));
    const { blinded, state } = await blindMessage(message, key);
    const signature = finalizeSignature(sign(privateKey, blinded), state, key);
    const ok = verify(
      "sha384",
      message,
      { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 },
      signature,
    );
    expect(ok).toBe(true);
    // The issuer saw `blinded`, never the message nor the signature.
    expect(Buffer.from(blinded).includes(Buffer.from(signature))).toBe(false);
  });

  it("finalization refuses an answer signed with another key (a broken issuer)", async () => {
    const { blinded, state } = await blindMessage(new Uint8Array(98), key);
    const other = keyPair();
    // The broken issuer signs what its own key can: `blinded` mod its modulus (raw RSA
    // refuses a message >= the modulus, which happens for about half of all key pairs).
    const otherKey = rsaKeyOfSpki(new Uint8Array(other.publicKey.export({ type: "spki", format: "der" })));
    const reduced = BigInt(`0x${Buffer.from(blinded).toString("hex")}`) % otherKey.n;
    const answer = sign(other.privateKey, toBytes(reduced, otherKey.bytes));
    expect(() => finalizeSignature(answer, state, key)).toThrow(/does not verify/);
  });

  it("the token's view is uniform over the views (chi-square, 3000 seeded random authenticators, p > 0.001)", async () => {
    const rng = seededRng(21);
    const seededBytes = (n: number) => Uint8Array.from({ length: n }, () => rng.nextUint32() & 0xff);
    const m = 10;
    const counts = new Array<number>(m).fill(0);
    for (let i = 0; i < 3000; i++) counts[await viewOfToken(seededBytes(TOKEN_BYTES), m)]!++;
    const expected = 3000 / m;
    const chi2 = counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    expect(chi2).toBeLessThan(27.88); // chi-square 9 df, upper 0.001 point
    // The view depends on the authenticator only: a device choosing its nonce cannot move it.
    const token = new Uint8Array(randomBytes(TOKEN_BYTES));
    const view = await viewOfToken(token, m);
    for (let i = 0; i < 20; i++) {
      token.set(randomBytes(32), 2);
      expect(await viewOfToken(token, m)).toBe(view);
    }
  });
});
