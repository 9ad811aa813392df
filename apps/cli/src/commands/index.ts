import type { Command } from "../cli-kit.js";

/** A command by name, its module loaded only when it runs (or for the command list). */
export interface CommandEntry {
  name: string;
  load(): Promise<Command>;
}

/**
 * Every CLI command, by name. Each module is imported only when its command runs,
 * so `calm-ldp version` does not load the harness, the collector or Vega (the
 * other commands' dependencies). To add one: write `commands/<name>.ts` exporting
 * a `Command` and list it here (one line).
 */
export const commands: readonly CommandEntry[] = [
  { name: "version", load: async () => (await import("./version.js")).versionCommand },
  { name: "rng-bench", load: async () => (await import("./rng-bench.js")).rngBenchCommand },
  { name: "plan", load: async () => (await import("./plan.js")).planCommand },
  { name: "audit", load: async () => (await import("./audit.js")).auditCommand },
  { name: "fo-bench", load: async () => (await import("./fo-bench.js")).foBenchCommand },
  { name: "maxent-bench", load: async () => (await import("./maxent-bench.js")).maxentBenchCommand },
  { name: "cover", load: async () => (await import("./cover.js")).coverCommand },
  { name: "run", load: async () => (await import("./run.js")).runCommand },
  { name: "demo", load: async () => (await import("./demo.js")).demoCommand },
  { name: "reproduce", load: async () => (await import("./reproduce.js")).reproduceCommand },
  { name: "serve", load: async () => (await import("./serve.js")).serveCommand },
  { name: "collector", load: async () => (await import("./collector.js")).collectorCommand },
];
