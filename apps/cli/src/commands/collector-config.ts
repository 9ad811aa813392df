import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { type OptionSpec, UsageError } from "../cli-kit.js";

/** Environment variables holding the secrets a configuration file never does. */
export const SECRET_VARIABLES = {
  adminToken: "CALM_LDP_ADMIN_TOKEN",
  postgres: "CALM_LDP_POSTGRES_URL",
  clickhouse: "CALM_LDP_CLICKHOUSE_URL",
} as const;

/** Keys a configuration file may not hold, and where the value goes instead. */
const SECRET_KEYS: Record<string, string> = {
  "admin-token": `the admin token is read from ${SECRET_VARIABLES.adminToken} only`,
  adminToken: `the admin token is read from ${SECRET_VARIABLES.adminToken} only`,
};

/**
 * A value of the file checked against its option's spec (type, bounds, choices):
 * the value, or a usage error naming the key and the file.
 */
function checkValue(where: string, key: string, spec: OptionSpec, value: unknown): unknown {
  const bad = (why: string): never => {
    throw new UsageError(`${where}: key "${key}" ${why} (got ${JSON.stringify(value)})`);
  };
  if (spec.type === "string") {
    // Lists may be written as YAML/JSON arrays (allow-origin: [a, b]).
    if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value.join(",");
    if (typeof value !== "string") bad("must be a string");
    if (spec.choices && !spec.choices.includes(value as string))
      bad(`must be one of ${spec.choices.join(", ")}`);
    return value;
  }
  if (spec.type === "number" || spec.type === "integer") {
    if (typeof value !== "number" || !Number.isFinite(value)) bad("must be a number");
    if (spec.type === "integer" && !Number.isSafeInteger(value)) bad("must be an integer");
    if (spec.min !== undefined && (value as number) < spec.min) bad(`must be >= ${spec.min}`);
    if (spec.max !== undefined && (value as number) > spec.max) bad(`must be <= ${spec.max}`);
    return value;
  }
  if (spec.type === "boolean") {
    if (typeof value !== "boolean") bad("must be true or false");
    return value;
  }
  return bad(`has a type (${spec.type}) a configuration file cannot give`);
}

/**
 * Read a configuration file of `collector serve` (YAML for .yaml/.yml, JSON
 * for .json): a mapping from option names (the command-line names without
 * `--`, e.g. `max-batch`) to values, each checked against its option (`allowed`
 * names, `specs` types and bounds). Errors name the file and the key: unknown
 * keys, wrong types, secrets (the admin token; see SECRET_VARIABLES), a file
 * that does not parse or is not a mapping. O(file size).
 */
export function readCollectorConfig(
  path: string,
  allowed: readonly string[],
  specs: Record<string, OptionSpec>,
): Record<string, unknown> {
  const where = `collector serve: config file ${path}`;
  const extension = extname(path).toLowerCase();
  if (![".yaml", ".yml", ".json"].includes(extension))
    throw new UsageError(`${where}: must end in .yaml, .yml or .json`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`${where}: cannot read it: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = extension === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const format = extension === ".json" ? "JSON" : "YAML";
    throw new UsageError(`${where}: not valid ${format}: ${(error as Error).message.split("\n")[0]}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed))
    throw new UsageError(`${where}: must be a mapping of option names to values`);
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (SECRET_KEYS[key]) throw new UsageError(`${where}: key "${key}" is not allowed: ${SECRET_KEYS[key]}`);
    if (!allowed.includes(key) || key === "config")
      throw new UsageError(
        `${where}: unknown key "${key}" (keys: ${allowed.filter((k) => k !== "config").join(", ")})`,
      );
    if (value === null) continue;
    config[key] = checkValue(where, key, specs[key]!, value);
  }
  return config;
}

/** `postgres://user:secret@host/db` -> `postgres://user:***@host/db` (URLs without a password unchanged). */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

/** The effective configuration as printed at start: database URLs masked, the admin token never shown. */
export function maskedConfiguration(options: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options))
    if (value !== undefined) shown[key] = typeof value === "string" ? maskUrl(value) : value;
  return { ...shown, "admin-token": `*** (from ${SECRET_VARIABLES.adminToken})` };
}
