import { createHash } from "node:crypto";
import { InvalidParameterError, reject } from "../errors.js";

/** What an attester sees of a token request: the device's attestation (body field), its address and the round. */
export interface AttestationRequest {
  /** The `attestation` string of the request body, if any (a device id, a client key, ...). */
  readonly attestation: string | undefined;
  /** The client's address (`request.ip`, after `trustProxy`). */
  readonly address: string;
  readonly round: string;
}

/** An attester's verdict: the identity whose quota pays, and that quota per round (tokens). */
export interface Vouched {
  readonly identity: string;
  readonly budget: number;
}

/**
 * The hook that decides who gets tokens (RFC 9576 §3: the attester). It either
 * vouches (an identity and its budget per round) or throws `RequestRejectedError`
 * (use `reject`: 401 `attestation-required`, 403 `not-attested`, ...). The
 * identity never reaches the collector's report path: the issuer signs blinded
 * messages, so a spent token cannot be linked to it.
 */
export interface Attester {
  readonly name: string;
  vouch(request: AttestationRequest): Vouched | Promise<Vouched>;
}

function budgetOf(name: string, budget: number): number {
  if (!Number.isSafeInteger(budget) || budget < 1)
    throw new InvalidParameterError(`${name} attester: budget must be an integer >= 1 (got ${budget})`);
  return budget;
}

/**
 * For tests and simulations only: any `attestation` string is a device and gets
 * `perRound` tokens per round (default 1). Anyone can claim new identities, so it
 * bounds nothing against Sybils; it makes the token path real for honest clients.
 */
export function testAttester(perRound = 1): Attester {
  const budget = budgetOf("test", perRound);
  return {
    name: "test",
    vouch: ({ attestation }) => {
      if (typeof attestation !== "string" || attestation.length === 0 || attestation.length > 256)
        reject(
          401,
          "attestation-required",
          "the test attester needs an `attestation` device id (1..256 characters)",
        );
      return { identity: `device:${attestation}`, budget };
    },
  };
}

/**
 * Admin-issued client keys: `attestation` must be one of `keys` (a key ->
 * its budget per round). For a deployment that hands each installation a key (an
 * app build, a provisioning step); a leaked key is worth its budget per round
 * until removed. Keys are compared by SHA-256 (the map holds only digests).
 */
export function clientKeyAttester(keys: Readonly<Record<string, number>>): Attester {
  const digest = (key: string) => createHash("sha256").update(key).digest("hex");
  const budgets = new Map(
    Object.entries(keys).map(([key, budget]) => [digest(key), budgetOf("client-key", budget)]),
  );
  if (budgets.size === 0) throw new InvalidParameterError("client-key attester: give at least one key");
  return {
    name: "client-key",
    vouch: ({ attestation }) => {
      if (typeof attestation !== "string")
        reject(401, "attestation-required", "this issuer needs an `attestation` client key");
      const hash = digest(attestation);
      const budget = budgets.get(hash);
      if (budget === undefined) reject(403, "not-attested", "unknown client key");
      return { identity: `key:${hash}`, budget };
    },
  };
}

/**
 * The weak default: the client's address gets `perRound` tokens per round. An
 * attacker with many addresses (a botnet, IPv6 prefixes, proxies) gets that many
 * quotas; devices behind one NAT share one.
 */
export function addressAttester(perRound = 1): Attester {
  const budget = budgetOf("address", perRound);
  return { name: "address", vouch: ({ address }) => ({ identity: `addr:${address}`, budget }) };
}
