#!/usr/bin/env node
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Command, commandHelp, parseOptions, UsageError } from "./cli-kit.js";
import { commands } from "./commands/index.js";

/** The command list with each command's summary (loads every command module; help only). */
async function usage(): Promise<string> {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  const loaded = await Promise.all(commands.map((c) => c.load()));
  return [
    "calm-ldp <command> [options] [--json]",
    "",
    "Commands:",
    ...loaded.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    "Run `calm-ldp <command> --help` for a command's options.",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${await usage()}\n`);
    return 0;
  }
  if (name === undefined) {
    // No arguments: the main job, the demo pipeline.
    return main(["demo"]);
  }
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    process.stderr.write(
      `calm-ldp: unknown command ${JSON.stringify(name)} (commands: ${commands.map((c) => c.name).join(", ")})\n`,
    );
    return 2;
  }
  const command: Command = await entry.load();
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(command, rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`calm-ldp ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.help) {
    process.stdout.write(`${commandHelp(command)}\n`);
    return 0;
  }
  const context = { json: parsed.json, log: (message: string) => process.stderr.write(`${message}\n`) };
  try {
    const result = await command.run(parsed.options, context, parsed.positionals);
    if (parsed.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else
      process.stdout.write(
        `${command.text ? command.text(result as never) : JSON.stringify(result, null, 2)}\n`,
      );
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`calm-ldp ${error.message}\n`);
      return 2;
    }
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(`calm-ldp ${command.name}: ${message.split("\n")[0]}\n`);
    return 1;
  }
}

/** Whether Node started this module (directly, through tsx, or through an installed bin's symlink). */
function startedAsEntry(): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

const isEntry = startedAsEntry();
if (isEntry) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`calm-ldp: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
