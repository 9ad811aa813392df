import { CalmLdpError } from "@calm-ldp/errors";
import type { HttpOptions } from "../api.js";
import { call } from "../http.js";
import { toHex } from "./wire.js";

/**
 * How a device checks that the token key an issuer handed it is the key every
 * device gets (key consistency, RFC 9576 §6.2): a key only this device holds
 * would tag its tokens, hence link its reports. Give either or both:
 */
export interface KeyConsistency {
  /**
   * Base URL of a second origin serving the window's key directory
   * (`GET /v1/rounds/:id/token-directory[?view=v]`, `GET /v1/campaigns/:id/token-directory`):
   * the collector when the issuer runs apart (it serves the keys it verifies
   * reports with), or a mirror or auditor that serves the same directory.
   */
  readonly directory?: string;
  /** Key ids the app trusts (hex SHA-256 of the key's SubjectPublicKeyInfo), e.g. shipped with it. */
  readonly pinnedKeyIds?: readonly string[];
}

/** The key a device was handed is not the one the directory or the pins name: it must not use it. */
export class KeyConsistencyError extends CalmLdpError {
  override readonly name: string = "KeyConsistencyError";
  readonly reason = "key-inconsistent";
  constructor(
    message: string,
    /** Hex id of the key the issuer handed out. */
    readonly keyId: string,
  ) {
    super(message);
  }
}

/** What checkKeyConsistency reads of a token key (a `TokenKey`). */
export interface KeyToCheck {
  readonly round: string;
  readonly scope?: "round" | "campaign";
  readonly view?: number;
  readonly keyId: Uint8Array;
  /** Base64 TokenChallenge. */
  readonly challenge: string;
}

/** A directory's answer, as far as the check reads it. */
interface DirectoryAnswer {
  readonly round?: unknown;
  readonly scope?: unknown;
  readonly view?: unknown;
  readonly keys?: readonly { readonly keyId?: unknown; readonly challenge?: unknown }[];
}

/**
 * Refuse `key` unless it is consistent: its id is among `pinnedKeyIds` (when
 * given), and the key directory of its window at `directory` (when given) names
 * the same window and view and lists the same key id with the same challenge
 * (both are in every token). Throws {@link KeyConsistencyError}
 * (`reason: "key-inconsistent"`), or `CollectorResponseError` when the directory
 * answers with an error. One GET when `directory` is given, else O(pins).
 */
export async function checkKeyConsistency(
  key: KeyToCheck,
  consistency: KeyConsistency,
  options: HttpOptions = {},
): Promise<void> {
  const id = toHex(key.keyId);
  const where = `token key of ${key.scope ?? "round"} ${key.round}${key.view === undefined ? "" : ` view ${key.view}`}`;
  const refuse = (why: string): never => {
    throw new KeyConsistencyError(`${where}: key ${id} refused: ${why}`, id);
  };
  const pins = consistency.pinnedKeyIds;
  if (pins !== undefined && !pins.some((pin) => pin.toLowerCase() === id))
    refuse(`not one of the ${pins.length} pinned key id(s)`);
  if (consistency.directory === undefined) return;
  const base = consistency.directory.replace(/\/+$/, "");
  const kind = key.scope === "campaign" ? "campaigns" : "rounds";
  const query = key.view === undefined ? "" : `?view=${key.view}`;
  const url = `${base}/v1/${kind}/${encodeURIComponent(key.round)}/token-directory${query}`;
  const body = (await call(url, { method: "GET" }, options)) as DirectoryAnswer;
  if (
    body.round !== key.round ||
    (body.scope ?? "round") !== (key.scope ?? "round") ||
    body.view !== key.view
  )
    refuse(`the directory at ${base} answered for another window`);
  const listed = (body.keys ?? []).find((entry) => entry.keyId === id);
  if (!listed) return refuse(`the directory at ${base} lists another key for this window`);
  if (listed.challenge !== key.challenge) refuse(`the directory at ${base} names another challenge`);
}
