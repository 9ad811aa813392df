import type { Command } from "../cli-kit.js";
import { rngBenchCommand } from "./rng-bench.js";
import { versionCommand } from "./version.js";

/**
 * Every CLI command, by name. To add one: write `commands/<name>.ts` exporting a
 * `Command` and list it here (one line).
 */
export const commands: readonly Command[] = [versionCommand, rngBenchCommand] as Command[];
