import {
  addressAttester,
  parseAllowedOrigins,
  startIssuer,
  type TokenProtection,
  testAttester,
} from "@calm-ldp/collector";
import { type CommandContext, type OptionSpec, UsageError } from "../cli-kit.js";
import { tokenProtection } from "./collector-attack.js";
import { parseDuration } from "./duration.js";

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
  "ledger-prune-every"?: string;
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
  "ledger-prune-every",
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
  "ledger-prune-every": {
    type: "string",
    description:
      "issuer, serve --require-tokens: how often the token issuer drops the quota counts of closed or removed rounds (a duration like 10m; 0: never; default 10m)",
  },
};

/** `--ledger-prune-every`: the `ledgerPruneEveryMs` option (0: false, never), or nothing when not given. */
function ledgerPrune(options: IssuerCliOptions, command: string): { ledgerPruneEveryMs?: number | false } {
  const every = options["ledger-prune-every"];
  if (every === undefined) return {};
  const ms = parseDuration(every, `${command}: --ledger-prune-every`);
  return { ledgerPruneEveryMs: ms === 0 ? false : ms };
}

/**
 * The `tokens` option of `serve`: with `--issuer-url` (and `--require-tokens`)
 * the issuer runs apart, its keys are not here (`--token-key-dir` refused); else
 * `tokenProtection` (the issuer inside). O(1).
 */
export function servedTokens(options: IssuerCliOptions): TokenProtection | undefined {
  const issuerUrl = options["issuer-url"];
  if (issuerUrl === undefined) {
    const protection = tokenProtection(options);
    if (!protection && options["ledger-prune-every"] !== undefined)
      throw new UsageError("collector serve: --ledger-prune-every needs --require-tokens");
    return protection && { ...protection, ...ledgerPrune(options, "collector serve") };
  }
  if (!options["require-tokens"])
    throw new UsageError("collector serve: --issuer-url needs --require-tokens");
  if (options["token-key-dir"] !== undefined || options["ledger-prune-every"] !== undefined)
    throw new UsageError(
      "collector serve: with --issuer-url the keys and the quota ledger are the issuer's: give --token-key-dir and --ledger-prune-every to `collector issuer`",
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
    ...ledgerPrune(options, "collector issuer"),
    log: context.log,
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
