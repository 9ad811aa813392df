import type { Command } from "../cli-kit.js";
import { auditCommand } from "./audit.js";
import { collectorCommand } from "./collector.js";
import { coverCommand } from "./cover.js";
import { demoCommand } from "./demo.js";
import { foBenchCommand } from "./fo-bench.js";
import { maxentBenchCommand } from "./maxent-bench.js";
import { planCommand } from "./plan.js";
import { reproduceCommand } from "./reproduce.js";
import { rngBenchCommand } from "./rng-bench.js";
import { runCommand } from "./run.js";
import { serveCommand } from "./serve.js";
import { versionCommand } from "./version.js";

/**
 * Every CLI command, by name. To add one: write `commands/<name>.ts` exporting a
 * `Command` and list it here (one import line, one entry line).
 */
export const commands: readonly Command[] = [
  versionCommand,
  rngBenchCommand,
  planCommand,
  auditCommand,
  foBenchCommand,
  maxentBenchCommand,
  coverCommand,
  runCommand,
  demoCommand,
  reproduceCommand,
  serveCommand,
  collectorCommand,
] as Command[];
