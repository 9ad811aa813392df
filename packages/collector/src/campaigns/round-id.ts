import { createHash } from "node:crypto";
import { CannotRunError } from "@calm-ldp/errors";
import type { StoredRound } from "../api.js";

/**
 * The estimate options of a round: a campaign round whose clients use an
 * instantaneous layer is de-biased for it (its `expectedSse` closed form does not
 * apply then). O(1). @internal
 */
export function roundEstimateOptions(round: StoredRound): { instantEps?: number } {
  const tag = round.request.campaign;
  return tag?.role === "round" && tag.instantEps !== undefined ? { instantEps: tag.instantEps } : {};
}

/**
 * The id of round `index` of a campaign: a name-based UUID (RFC 9562 version 5:
 * SHA-1 of the campaign's id as namespace and `round/<index>`), so every
 * collector derives the same id for the same round and concurrent roll-overs on
 * one database open one round, not two. Public like every round id (it says no
 * more than the campaign id and the index). O(1).
 */
export function campaignRoundId(campaign: string, index: number): string {
  return uuidV5(campaign, `round/${index}`);
}

/** RFC 9562 version-5 UUID of `name` (UTF-8) in the UUID `namespace`. O(length). @internal */
export function uuidV5(namespace: string, name: string): string {
  const bytes = Buffer.from(namespace.replaceAll("-", ""), "hex");
  if (bytes.length !== 16) throw new CannotRunError(`namespace ${JSON.stringify(namespace)} is not a UUID`);
  const hash = createHash("sha1").update(bytes).update(name, "utf8").digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
