import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TOKEN_TYPE } from "@calm-ldp/client/tokens";

/**
 * What verifying a window's tokens needs (a collector whose issuer runs apart has
 * only this, fetched from the issuer: see remote-keys.ts).
 */
export interface VerifyKey {
  /** The key's window name: a round id, `<round>.v<view>` (a campaign round's key of one view), or a campaign id. */
  readonly round: string;
  readonly publicKey: KeyObject;
  /** The key as Privacy Pass names it: SubjectPublicKeyInfo in the RSASSA-PSS form (RFC 9578 §6.5). */
  readonly publicKeyBytes: Uint8Array;
  /** SHA-256 of `publicKeyBytes`: the token_key_id every token of the window carries. */
  readonly keyId: Uint8Array;
  /** The window's TokenChallenge (issuer name, redemption context = SHA-256 of the round id). */
  readonly challenge: Uint8Array;
  readonly challengeDigest: Uint8Array;
  /** Bytes of the modulus (256 for RSA-2048). */
  readonly modulusBytes: number;
}

/**
 * One window's token key, private part included (the issuer's). A window is one
 * round: every round has its own key (a campaign round one per view, see
 * `viewKeyName`), so keys rotate with the rounds and a token of one round is
 * worthless in another; a campaign's own key signs its campaign tokens.
 */
export interface WindowKey extends VerifyKey {
  readonly privateKey: KeyObject;
}

/** The key name of view `view` of campaign round `round`: `<round>.v<view>` (its challenge is the round's). */
export const viewKeyName = (round: string, view: number): string => `${round}.v${view}`;

const KEY_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(\.v[0-9]{1,6})?$/;

const sha256 = (bytes: Uint8Array | string) => new Uint8Array(createHash("sha256").update(bytes).digest());

/** A DER length. */
function derLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let l = length; l > 0; l >>= 8) bytes.unshift(l & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

/**
 * AlgorithmIdentifier of RSASSA-PSS with SHA-384, MGF1-SHA-384 and a 48-byte salt
 * (RFC 4055 §3.1), the parameters RFC 9578 §6.5 names token keys with.
 */
const PSS_SHA384 = Buffer.from(
  "303d06092a864886f70d01010a3030a00d300b0609608648016503040202a11a301806092a864886f70d010108300b0609608648016503040202a203020130",
  "hex",
);

/** SubjectPublicKeyInfo { RSASSA-PSS SHA-384 parameters, BIT STRING { RSAPublicKey } }: the bytes a token key id hashes. */
function pssSpki(pkcs1: Uint8Array): Uint8Array {
  const bits = [0x03, ...derLength(pkcs1.length + 1), 0x00, ...pkcs1];
  const body = [...PSS_SHA384, ...bits];
  return Uint8Array.from([0x30, ...derLength(body.length), ...body]);
}

/**
 * TokenChallenge (RFC 9577 §2.1): token_type (2 bytes), issuer_name (2-byte
 * length), redemption_context (1-byte length, 32 bytes here), origin_info (2-byte
 * length, empty: any origin).
 */
function tokenChallenge(issuerName: string, redemptionContext: Uint8Array): Uint8Array {
  const name = new TextEncoder().encode(issuerName);
  return Uint8Array.from([
    TOKEN_TYPE >> 8,
    TOKEN_TYPE & 0xff,
    name.length >> 8,
    name.length & 0xff,
    ...name,
    redemptionContext.length,
    ...redemptionContext,
    0,
    0,
  ]);
}

/**
 * The issuer's keys, one RSA-2048 key per round, made on first use. Without
 * `keyDir` they live in this process only; with it each is written once as
 * `<keyDir>/<round>.pem` (PKCS #8, mode 0600, created exclusively, so collector
 * processes sharing the directory agree on one key per round even when they race),
 * which is what lets another process or a restarted one verify the round's
 * tokens. Key generation ~100-300 ms once per round; lookups O(1).
 */
export class TokenKeyring {
  readonly #keys = new Map<string, Promise<WindowKey>>();

  constructor(
    readonly issuerName: string,
    readonly keyDir?: string,
  ) {}

  /**
   * The key named `name` (a round id, `viewKeyName(round, view)` or a campaign id),
   * made (or read from `keyDir`) on first use; its challenge's redemption context
   * is SHA-256(`context`) (default the name: a view key passes its round's id, so
   * its tokens carry the round's challenge).
   */
  keyFor(name: string, context: string = name): Promise<WindowKey> {
    let key = this.#keys.get(name);
    if (!key) {
      key = this.#load(name, context);
      this.#keys.set(name, key);
      key.catch(() => this.#keys.delete(name));
    }
    return key;
  }

  async #load(round: string, context: string): Promise<WindowKey> {
    if (!KEY_NAME.test(round)) throw new Error(`token keyring: not a key name: ${round}`);
    const pem = await this.#privatePem(round);
    const privateKey = createPrivateKey(pem);
    const publicKey = createPublicKey(privateKey);
    const publicKeyBytes = pssSpki(new Uint8Array(publicKey.export({ type: "pkcs1", format: "der" })));
    const challenge = tokenChallenge(this.issuerName, sha256(context));
    return {
      round,
      privateKey,
      publicKey,
      publicKeyBytes,
      keyId: sha256(publicKeyBytes),
      challenge,
      challengeDigest: sha256(challenge),
      modulusBytes: (publicKey.asymmetricKeyDetails?.modulusLength ?? 2048) / 8,
    };
  }

  async #privatePem(round: string): Promise<string> {
    const fresh = () =>
      new Promise<string>((resolve, reject) =>
        generateKeyPair("rsa", { modulusLength: 2048, publicExponent: 65537 }, (error, _pub, priv) =>
          error ? reject(error) : resolve(priv.export({ type: "pkcs8", format: "pem" }) as string),
        ),
      );
    if (this.keyDir === undefined) return fresh();
    const file = join(this.keyDir, `${round}.pem`);
    try {
      return await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    await mkdir(this.keyDir, { recursive: true, mode: 0o700 });
    const pem = await fresh();
    try {
      await writeFile(file, pem, { flag: "wx", mode: 0o600 });
      return pem;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      return readFile(file, "utf8"); // another process made it first: use theirs
    }
  }
}
