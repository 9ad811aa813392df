import {
  addressAttester,
  parseAllowedOrigins,
  startIssuer,
  type TokenProtection,
  testAttester,
} from "@calm-ldp/collector";
import { type CommandContext, type OptionSpec, UsageError } from "../cli-kit.js";
import { tokenProtection } from "./collector-attack.js";

/** The options of `collector issuer` and `serve --issuer-url` (command-line names). */
export interface IssuerCliOptions {
  "issuer-url"?: string;
  "collector-url"?: string;
  "require-tokens"?: boolean;
  attester: string;
  "token-key-dir"?: string;
  host: string;
  port: number;
  "allow-origin"?: string;
  "trust-proxy"?: string;
}

/** What `collector issuer` reads. */
export const ISSUER_OPTIONS = [
  "collector-url",
  "host",
  "port",
  "attester",
  "token-key-dir",
  "allow-origin",
  "trust-proxy",
] as const;

/** The options the issuer adds to the collector command. */
export const ISSUER_OPTION_SPECS: Record<string, OptionSpec> = {
  "issuer-url": {
    type: "string",
    description:
      "serve --require-tokens: the token issuer runs apart at this URL (collector issuer): reports are checked with its public keys, and this collector serves no token endpoint",
  },
  "collector-url": {
    type: "string",
    description:
      "issuer: the collector whose rounds and campaigns this issuer gives tokens for (its public API)",
  },
};

/**
 * The `tokens` option of `serve`: with `--issuer-url` (and `--require-tokens`)
 * the issuer runs apart, its keys are not here (`--token-key-dir` refused); else
 * `tokenProtection` (the issuer inside). O(1).
 */
export function servedTokens(options: IssuerCliOptions): TokenProtection | undefined {
  const issuerUrl = options["issuer-url"];
  if (issuerUrl === undefined) return tokenProtection(options);
  if (!options["require-tokens"])
    throw new UsageError("collector serve: --issuer-url needs --require-tokens");
  if (options["token-key-dir"] !== undefined)
    throw new UsageError(
      "collector serve: with --issuer-url the keys are the issuer's: give --token-key-dir to `collector issuer`",
    );
  if (!/^https?:\/\/[^/\s]+/.test(issuerUrl))
    throw new UsageError(`collector serve: --issuer-url must be an http(s) URL (got ${issuerUrl})`);
  return { issuerUrl };
}

/**
 * `collector issuer --collector-url <url> [--port] [--attester] [--token-key-dir]`:
 * the Privacy Pass token issuer apart from the collector (its own process and
 * keys; `--token-key-dir` also keeps its quota ledger across restarts). Runs
 * until SIGINT/SIGTERM; the document says where it listened and how it stopped.
 */
export async function runIssuer(options: IssuerCliOptions, context: CommandContext): Promise<unknown> {
  const collectorUrl = options["collector-url"];
  if (collectorUrl === undefined) throw new UsageError("collector issuer: --collector-url is required");
  const origins = options["allow-origin"];
  let allowOrigins: readonly string[] = [];
  try {
    if (origins !== undefined)
      allowOrigins = parseAllowedOrigins(
        origins.split(",").map((o) => o.trim()),
        "--allow-origin",
      );
  } catch (error) {
    throw new UsageError(`collector issuer: ${(error as Error).message}`);
  }
  const keyDir = options["token-key-dir"];
  const issuer = await startIssuer({
    collectorUrl,
    attester: options.attester === "test" ? testAttester() : addressAttester(),
    host: options.host,
    port: options.port,
    allowOrigins,
    ...(keyDir !== undefined ? { keyDir } : {}),
    ...(options["trust-proxy"] !== undefined ? { trustProxy: options["trust-proxy"] } : {}),
  });
  const started = Date.now();
  context.log(
    `collector issuer listening on ${issuer.url} for the collector at ${collectorUrl} (attester ${options.attester}, keys ${keyDir ?? "in memory"}); stop with Ctrl-C`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  context.log(`collector issuer: ${signal}, stopping`);
  await issuer.close();
  return {
    url: issuer.url,
    collectorUrl,
    attester: options.attester,
    keyDir: keyDir ?? null,
    allowOrigins,
    stoppedBy: signal,
    seconds: (Date.now() - started) / 1000,
  };
}
