import { UsageError } from "../cli-kit.js";
import type { CampaignCall } from "./collector-campaign.js";
import type { CollectorOptions } from "./collector-options.js";

/** The environment variable holding the admin bearer token. */
export const ADMIN_TOKEN_VARIABLE = "CALM_LDP_ADMIN_TOKEN";

/** The admin token from $CALM_LDP_ADMIN_TOKEN; a usage error naming `subcommand` when unset or shorter than 16. */
export function adminToken(subcommand: string): string {
  const token = process.env[ADMIN_TOKEN_VARIABLE];
  if (!token || token.length < 16)
    throw new UsageError(
      `collector ${subcommand}: set ${ADMIN_TOKEN_VARIABLE} to the admin token (at least 16 characters)`,
    );
  return token;
}

/** `value`, or a usage error saying `--name` is required by `subcommand`. */
export function required<T>(subcommand: string, name: string, value: T | undefined): T {
  if (value === undefined) throw new UsageError(`collector ${subcommand}: --${name} is required`);
  return value;
}

/** An admin request: JSON in and out, the collector's error reason in the message. */
export async function adminCall(
  base: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new Error(`cannot reach the collector at ${base}: ${(error as Error).message}`);
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(
      `collector answered HTTP ${response.status} ${String(answer.reason)}: ${String(answer.message)}`,
    );
  return answer;
}

/** A campaign subcommand's call: the options with the collector's URL, the admin token, the admin request. */
export function campaignCall(subcommand: string, options: CollectorOptions, url: string): CampaignCall {
  return { options: { ...options, url }, token: adminToken(subcommand), adminCall };
}
