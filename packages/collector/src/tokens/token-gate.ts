import { createHash, createPublicKey } from "node:crypto";
import { rsaKeyOfSpki, toBytes } from "@calm-ldp/client/tokens";
import type { StoredRound } from "../api.js";
import { reject } from "../errors.js";
import { checkTokenReports, checkViewTokenReports } from "./check-reports.js";
import type { DirectoryKeys } from "./key-directory.js";
import { type TokenKeyring, type VerifyKey, viewKeyName } from "./keyring.js";

/** The report path's hook: refuse a batch whose tokens do not check out (see check-reports.ts). */
export type ReportGate = (
  round: StoredRound,
  reports: readonly { id: string; view: number; token?: string }[],
) => Promise<void>;

/** Where the collector gets a round's verification key (of one view, in a campaign round). */
export interface KeySource {
  keyFor(round: string, view?: number): Promise<VerifyKey>;
}

/** The issuer's own keyring (issuer inside the collector): a view key is `<round>.v<view>` with the round's challenge. */
export const keyringSource = (keyring: TokenKeyring): KeySource & DirectoryKeys => ({
  keyFor: (round, view) =>
    view === undefined ? keyring.keyFor(round) : keyring.keyFor(viewKeyName(round, view), round),
  campaignKeyFor: (campaign) => keyring.keyFor(campaign),
});

const sha256 = (bytes: Uint8Array | string) => new Uint8Array(createHash("sha256").update(bytes).digest());
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The redemption context of a TokenChallenge (RFC 9577 §2.1), or undefined when it does not parse. */
function redemptionContext(challenge: Uint8Array): Uint8Array | undefined {
  if (challenge.length < 5) return undefined;
  const at = 4 + ((challenge[2]! << 8) | challenge[3]!);
  const length = challenge[at];
  if (length === undefined || at + 1 + length + 2 > challenge.length) return undefined;
  return challenge.subarray(at + 1, at + 1 + length);
}

/**
 * The keys of an issuer running apart (`issuerUrl`): `GET <issuer>/v1/rounds/:id/token-key[?view=v]`,
 * public keys only. Each key is fetched once and kept (a key never changes; a
 * failed fetch is retried on the next batch). The key's challenge must name
 * the round (redemption context = SHA-256 of its id), else it is refused: a
 * misconfigured or hostile issuer cannot make the collector accept tokens of
 * another window. The collector verifies only tokens of that issuer's keys: a
 * token of any other issuer names another key id and is refused. One HTTP
 * request per (round, view), then O(1).
 */
export class RemoteKeys implements KeySource, DirectoryKeys {
  readonly #keys = new Map<string, Promise<VerifyKey>>();
  readonly #base: string;

  constructor(
    issuerUrl: string,
    readonly fetcher: typeof fetch = fetch,
  ) {
    this.#base = issuerUrl.replace(/\/+$/, "");
  }

  keyFor(round: string, view?: number): Promise<VerifyKey> {
    const name = view === undefined ? round : viewKeyName(round, view);
    const path = `rounds/${encodeURIComponent(round)}/token-key${view === undefined ? "" : `?view=${view}`}`;
    return this.#kept(name, () => this.#fetch(round, path, name));
  }

  /**
   * The key of campaign `campaign`'s campaign tokens (`GET <issuer>/v1/campaigns/:id/token-key`),
   * fetched once and kept like a round's: the collector never verifies campaign
   * tokens (the issuer does), it mirrors the key in its key directory.
   */
  campaignKeyFor(campaign: string): Promise<VerifyKey> {
    const path = `campaigns/${encodeURIComponent(campaign)}/token-key`;
    return this.#kept(`campaign:${campaign}`, () => this.#fetch(campaign, path, campaign));
  }

  #kept(name: string, fetchKey: () => Promise<VerifyKey>): Promise<VerifyKey> {
    let key = this.#keys.get(name);
    if (!key) {
      key = fetchKey();
      this.#keys.set(name, key);
      key.catch(() => this.#keys.delete(name));
    }
    return key;
  }

  async #fetch(round: string, path: string, name: string): Promise<VerifyKey> {
    const url = `${this.#base}/v1/${path}`;
    let body: { publicKey?: unknown; challenge?: unknown; reason?: unknown };
    let status: number;
    try {
      const response = await this.fetcher(url, { headers: { accept: "application/json" } });
      status = response.status;
      body = (await response.json()) as typeof body;
    } catch (error) {
      return reject(503, "issuer-unavailable", `the token issuer cannot be reached (${String(error)})`);
    }
    if (status !== 200)
      reject(
        503,
        "issuer-unavailable",
        `the token issuer answered ${status} (${String(body.reason)}) for ${name}`,
      );
    const bytes = (text: unknown) =>
      typeof text === "string" && text.length > 0 ? new Uint8Array(Buffer.from(text, "base64")) : undefined;
    const spki = bytes(body.publicKey);
    const challenge = bytes(body.challenge);
    const context = challenge && redemptionContext(challenge);
    if (!spki || !challenge || !context || !equal(context, sha256(round)))
      reject(503, "issuer-unavailable", `the token issuer's key for ${name} does not name round ${round}`);
    let rsa: ReturnType<typeof rsaKeyOfSpki>;
    try {
      rsa = rsaKeyOfSpki(spki);
    } catch (error) {
      return reject(
        503,
        "issuer-unavailable",
        `the token issuer's key for ${name}: ${(error as Error).message}`,
      );
    }
    const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
    const publicKey = createPublicKey({
      key: { kty: "RSA", n: b64url(toBytes(rsa.n, rsa.bytes)), e: b64url(toBytes(rsa.e, 3)) },
      format: "jwk",
    });
    return {
      round: name,
      publicKey,
      publicKeyBytes: spki,
      keyId: sha256(spki),
      challenge,
      challengeDigest: sha256(challenge),
      modulusBytes: rsa.bytes,
    };
  }
}

/**
 * The report gate over `keys`: a plain round's reports are checked against the
 * round's key, the view following from each token (`checkTokenReports`); a
 * campaign round's against the key of each report's view (`checkViewTokenReports`).
 * One key lookup per distinct view of the batch.
 */
export function tokenGate(keys: KeySource): ReportGate {
  return async (round, reports) => {
    const views = round.plan.views.length;
    if (round.request.campaign?.role !== "round") {
      checkTokenReports(await keys.keyFor(round.id), views, reports);
      return;
    }
    const claimed = [...new Set(reports.map((r) => r.view))].filter(
      (v) => Number.isInteger(v) && v >= 0 && v < views,
    );
    const byView = new Map(
      await Promise.all(claimed.map(async (v) => [v, await keys.keyFor(round.id, v)] as const)),
    );
    checkViewTokenReports((view) => byView.get(view)!, views, reports);
  };
}
