/**
 * A small, strict command-line kit: every command declares its options, gets
 * `--help` and `--json` for free, rejects unknown options and bad values with a
 * one-line error naming the option, and prints exactly one JSON document on stdout
 * under `--json` (progress and logs go to stderr).
 */

export type OptionType = "string" | "number" | "integer" | "boolean" | "numbers" | "strings";

export interface OptionSpec {
  type: OptionType;
  description: string;
  /** Default value (as parsed); options without a default and with `required` must be given. */
  default?: unknown;
  required?: boolean;
  /** For "number"/"integer"/"numbers": inclusive bounds checked after parsing. */
  min?: number;
  max?: number;
  /** Allowed values for "string"/"strings". */
  choices?: readonly string[];
}

export interface CommandContext {
  /** True under `--json`: print nothing but the one JSON document on stdout. */
  json: boolean;
  /** Write a log or progress line to stderr. */
  log(message: string): void;
}

export interface Command<O extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  summary: string;
  /** Positional arguments this command takes (names for help), if any. */
  positionals?: readonly string[];
  options: Record<string, OptionSpec>;
  /**
   * Runs the command; the returned object is the `--json` document. `text`, when
   * given, renders it for humans (default: pretty JSON).
   */
  run(options: O, context: CommandContext, positionals: string[]): Promise<unknown> | unknown;
  text?(result: never): string;
}

/** Raised for a usage error; the CLI prints its message on one line and exits 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

function parseValue(command: string, name: string, spec: OptionSpec, raw: string): unknown {
  const bad = (why: string): never => {
    throw new UsageError(`${command}: --${name} ${why} (got ${JSON.stringify(raw)})`);
  };
  const parseNumber = (text: string): number => {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value)) bad("must be a finite number");
    if (spec.type === "integer" && !Number.isSafeInteger(value)) bad("must be an integer");
    if (spec.min !== undefined && value < spec.min) bad(`must be >= ${spec.min}`);
    if (spec.max !== undefined && value > spec.max) bad(`must be <= ${spec.max}`);
    return value;
  };
  switch (spec.type) {
    case "string":
      if (spec.choices && !spec.choices.includes(raw)) bad(`must be one of ${spec.choices.join(", ")}`);
      return raw;
    case "strings": {
      const items = raw.split(",").map((s) => s.trim());
      if (items.some((s) => s === "")) bad("must be a comma-separated list without empty items");
      for (const item of items) {
        if (spec.choices && !spec.choices.includes(item))
          bad(`items must be among ${spec.choices.join(", ")}`);
      }
      return items;
    }
    case "number":
    case "integer":
      return parseNumber(raw);
    case "numbers":
      return raw.split(",").map((s) => parseNumber(s));
    case "boolean":
      if (raw === "true") return true;
      if (raw === "false") return false;
      return bad("must be true or false");
  }
}

/** Parse argv (after the command name) against the command's option specs. */
export function parseOptions(
  command: Command,
  argv: string[],
): { options: Record<string, unknown>; positionals: string[]; json: boolean; help: boolean } {
  const options: Record<string, unknown> = {};
  const positionals: string[] = [];
  let json = false;
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--json") {
      json = true;
      continue;
    }
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const spec = command.options[name];
    if (!spec)
      throw new UsageError(`${command.name}: unknown option --${name} (see calm-ldp ${command.name} --help)`);
    let raw: string;
    if (eq >= 0) raw = arg.slice(eq + 1);
    else if (spec.type === "boolean" && (argv[i + 1] === undefined || argv[i + 1]!.startsWith("--")))
      raw = "true";
    else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`${command.name}: --${name} needs a value`);
      raw = next;
      i++;
    }
    options[name] = parseValue(command.name, name, spec, raw);
  }
  if (!help) {
    const expected = command.positionals?.length ?? 0;
    if (positionals.length > expected) {
      throw new UsageError(`${command.name}: unexpected argument ${JSON.stringify(positionals[expected])}`);
    }
    for (const [name, spec] of Object.entries(command.options)) {
      if (options[name] === undefined) {
        if (spec.required) throw new UsageError(`${command.name}: --${name} is required`);
        if (spec.default !== undefined) options[name] = spec.default;
      }
    }
  }
  return { options, positionals, json, help };
}

/**
 * Run `command` on a command line (what follows its name) as the CLI does, minus
 * the printing: parse `argv`, then `run` with `context` (default: JSON mode, logs
 * dropped). Returns what `run` returns: the `--json` document, or a promise of it
 * (type it with `T`). Bad options throw a UsageError. For tests and programs.
 */
export function runCommandLine<T = Record<string, unknown>>(
  command: Command,
  argv: string[],
  context: CommandContext = { json: true, log: () => {} },
): T {
  const parsed = parseOptions(command, argv);
  return command.run(parsed.options, context, parsed.positionals) as T;
}

/** The `--help` text of one command. */
export function commandHelp(command: Command): string {
  const lines = [
    `calm-ldp ${command.name}${command.positionals ? ` ${command.positionals.map((p) => `<${p}>`).join(" ")}` : ""} [options]`,
    "",
    command.summary,
    "",
    "Options:",
  ];
  for (const [name, spec] of Object.entries(command.options)) {
    const extra = [
      spec.required ? "required" : undefined,
      spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : undefined,
      spec.choices ? `one of ${spec.choices.join("|")}` : undefined,
    ]
      .filter(Boolean)
      .join("; ");
    lines.push(`  --${name} <${spec.type}>`.padEnd(30) + spec.description + (extra ? ` (${extra})` : ""));
  }
  lines.push(`${"  --json".padEnd(30)}print exactly one JSON document on stdout`);
  lines.push(`${"  --help".padEnd(30)}this text`);
  return lines.join("\n");
}
