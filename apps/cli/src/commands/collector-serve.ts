import {
  LOG_LEVELS,
  openStorage,
  parseAllowedOrigins,
  parseRateLimit,
  type RateLimit,
  type StorageLocation,
  startCollector,
} from "@calm-ldp/collector";
import { InvalidParameterError } from "@calm-ldp/errors";
import { type CommandContext, type OptionSpec, UsageError } from "../cli-kit.js";
import { maskedConfiguration, readCollectorConfig, SECRET_VARIABLES } from "./collector-config.js";
import { servedTokens } from "./collector-issuer.js";
import { parseDuration } from "./duration.js";

/** What `collector serve` and `collector migrate` read (command-line names). */
export interface ServeOptions {
  config?: string;
  db?: string;
  postgres?: string;
  clickhouse?: string;
  host: string;
  port: number;
  "metrics-port"?: number;
  "log-level"?: string;
  "max-batch": number;
  "allow-origin"?: string;
  "id-retention": string;
  "rate-limit"?: string;
  "trust-proxy"?: string;
  "require-tokens"?: boolean;
  attester: string;
  "token-key-dir"?: string;
  "issuer-url"?: string;
  "ledger-prune-every"?: string;
}

/** The options of `serve` (every one may also be a key of its --config file, but `config`). */
export const SERVE_OPTIONS = [
  "config",
  "db",
  "postgres",
  "clickhouse",
  "host",
  "port",
  "metrics-port",
  "log-level",
  "max-batch",
  "allow-origin",
  "id-retention",
  "rate-limit",
  "trust-proxy",
  "require-tokens",
  "attester",
  "token-key-dir",
  "issuer-url",
  "ledger-prune-every",
] as const;

/** The options `serve` adds to the collector command (the others are declared there). */
export const SERVE_OPTION_SPECS: Record<string, OptionSpec> = {
  config: {
    type: "string",
    description:
      "serve/migrate: a configuration file (.yaml, .yml or .json) whose keys are these options' names (max-batch: 500, ...); options given on the command line win. Secrets only from the environment: CALM_LDP_ADMIN_TOKEN, and CALM_LDP_POSTGRES_URL / CALM_LDP_CLICKHOUSE_URL when no storage is given",
  },
  "metrics-port": {
    type: "integer",
    description:
      "serve: serve GET /metrics (Prometheus) on this port instead of the API's (0: any free port)",
    min: 0,
    max: 65535,
  },
  "log-level": {
    type: "string",
    description:
      "serve: structured JSON log lines on stderr from this level (refused batches, storage lost/back, rounds opened/closed at info; each request at debug)",
    default: "info",
    choices: LOG_LEVELS,
  },
};

/**
 * The command line's options merged with the --config file's (a command-line
 * value other than the option's default wins) and the storage URL from the
 * environment when neither gives a storage; `fromFile` names the keys the file
 * set, so later errors can name the key rather than the flag.
 */
export function resolveServeOptions(
  options: ServeOptions,
  specs: Record<string, OptionSpec>,
): { options: ServeOptions; fromFile: Set<string> } {
  const merged: Record<string, unknown> = { ...options };
  const fromFile = new Set<string>();
  if (options.config !== undefined) {
    const file = readCollectorConfig(options.config, SERVE_OPTIONS, specs);
    for (const [key, value] of Object.entries(file)) {
      const given = merged[key];
      if (given === undefined || given === specs[key]?.default) {
        merged[key] = value;
        fromFile.add(key);
      }
    }
  }
  if (merged.db === undefined && merged.postgres === undefined && merged.clickhouse === undefined) {
    const postgres = process.env[SECRET_VARIABLES.postgres];
    const clickhouse = process.env[SECRET_VARIABLES.clickhouse];
    if (postgres) merged.postgres = postgres;
    else if (clickhouse) merged.clickhouse = clickhouse;
  }
  return { options: merged as unknown as ServeOptions, fromFile };
}

/** Where the options say the data is (DuckDB `collector.duckdb` by default when `fallback`). */
export function storageLocation(
  subcommand: string,
  options: ServeOptions,
  fallback: boolean,
): StorageLocation & { readonly file?: string } {
  if (options.db !== undefined && options.postgres !== undefined)
    throw new UsageError(`collector ${subcommand}: give --db or --postgres, not both`);
  if (options.clickhouse !== undefined && (options.db !== undefined || options.postgres !== undefined))
    throw new UsageError(`collector ${subcommand}: give --clickhouse alone, not with --db or --postgres`);
  if (options.clickhouse !== undefined) return { clickhouse: options.clickhouse };
  if (options.postgres !== undefined) return { postgres: options.postgres };
  if (options.db === undefined && !fallback)
    throw new UsageError(
      `collector ${subcommand}: give --db, --postgres or --clickhouse (or set ${SECRET_VARIABLES.postgres} or ${SECRET_VARIABLES.clickhouse})`,
    );
  const file = options.db ?? "collector.duckdb";
  return { duckdb: file, file };
}

/** Run `check`; a usage error about a value the config file gave names its key there instead of the flag. */
function named<T>(key: string, options: ServeOptions, fromFile: Set<string>, check: () => T): T {
  try {
    return check();
  } catch (error) {
    const message = (error as Error).message.replace(/^(collector serve|createCollector): /, "");
    if (!fromFile.has(key)) throw new UsageError(`collector serve: ${message}`);
    const reason = message.replace(new RegExp(`^(--${key}|trustProxy):? `), "");
    throw new UsageError(`collector serve: config file ${options.config}: key "${key}" ${reason}`);
  }
}

/** The collector's settings checked: origins, retention, rate limit (errors name the flag or the file's key). */
function checkedSettings(options: ServeOptions, fromFile: Set<string>) {
  const origins = options["allow-origin"];
  const allowOrigins =
    origins === undefined
      ? []
      : named("allow-origin", options, fromFile, () =>
          parseAllowedOrigins(
            origins.split(",").map((origin) => origin.trim()),
            "--allow-origin",
          ),
        );
  const idRetentionMs = named("id-retention", options, fromFile, () =>
    parseDuration(options["id-retention"], "collector serve: --id-retention"),
  );
  const limit = options["rate-limit"];
  const rateLimit: RateLimit | undefined =
    limit === undefined
      ? undefined
      : named("rate-limit", options, fromFile, () => parseRateLimit(limit, "--rate-limit"));
  return { allowOrigins, idRetentionMs, rateLimit };
}

/**
 * `collector serve`: merge the options (see `resolveServeOptions`), print the
 * effective configuration (secrets masked), open the storage (migrating its
 * schema), serve until SIGINT or SIGTERM; the JSON document is printed when the
 * server has stopped.
 */
export async function serve(
  raw: ServeOptions,
  specs: Record<string, OptionSpec>,
  token: string,
  context: CommandContext,
): Promise<unknown> {
  const { options, fromFile } = resolveServeOptions(raw, specs);
  const { allowOrigins, idRetentionMs, rateLimit } = checkedSettings(options, fromFile);
  const location = storageLocation("serve", options, true);
  const configuration = maskedConfiguration({
    ...options,
    ...("file" in location ? { db: location.file } : {}),
  });
  context.log(`collector: configuration ${JSON.stringify(configuration)}`);
  const storage = await openStorage(location);
  const logLevel = options["log-level"] ?? "info";
  const tokens = servedTokens(options);
  const collector = await startCollector({
    storage,
    adminToken: token,
    ...(tokens ? { tokens } : {}),
    host: options.host,
    port: options.port,
    maxBatch: options["max-batch"],
    logLevel,
    // The storage's lost/back lines are JSON log lines; plain lines only when logging is off.
    log: logLevel === "silent" ? context.log : () => undefined,
    allowOrigins,
    idRetentionMs,
    ...(options["metrics-port"] !== undefined ? { metricsPort: options["metrics-port"] } : {}),
    ...(rateLimit !== undefined ? { rateLimit } : {}),
    ...(options["trust-proxy"] !== undefined ? { trustProxy: options["trust-proxy"] } : {}),
  }).catch(async (error: unknown) => {
    await storage.close();
    if (error instanceof InvalidParameterError && /trustProxy/.test(error.message))
      return named("trust-proxy", options, fromFile, () => {
        throw error;
      });
    throw error;
  });
  const started = Date.now();
  const migration = storage.schemaMigration;
  if (migration && migration.steps.length > 0)
    context.log(
      `collector: ${migration.backend} schema migrated from version ${migration.from} to ${migration.to}`,
    );
  context.log(`collector listening on ${collector.url} (storage: ${storage.backend}); stop with Ctrl-C`);
  context.log(
    `collector: metrics on ${collector.metricsUrl ?? collector.url}/metrics; /healthz, /readyz, /openapi.json`,
  );
  context.log(
    allowOrigins.length > 0
      ? `collector: web pages on ${allowOrigins.join(", ")} may fetch plans and post reports (CORS)`
      : "collector: no cross-origin access (give --allow-origin for web pages on other origins)",
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  context.log(`collector: ${signal}, stopping`);
  await collector.close();
  return {
    url: collector.url,
    storage: storage.backend,
    ...("file" in location ? { db: location.file } : {}),
    allowOrigins,
    idRetentionMs,
    rateLimit: rateLimit ?? null,
    metricsUrl: collector.metricsUrl ?? collector.url,
    configuration,
    schemaMigration: migration ?? null,
    stoppedBy: signal,
    seconds: (Date.now() - started) / 1000,
  };
}
