import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { runCommandLine } from "../cli-kit.js";
import { ADMIN_TOKEN_VARIABLE, collectorCommand } from "./collector.js";

/** The admin token the collector commands' tests run with. */
export const TEST_ADMIN_TOKEN = "cli-test-admin-token-0123456789";

/**
 * What the `calm-ldp collector` tests share, set up for the enclosing describe
 * block: a temporary directory (removed afterwards), CALM_LDP_ADMIN_TOKEN set to
 * {@link TEST_ADMIN_TOKEN} (restored afterwards), and `run(argv)`, the collector
 * command on a command line in JSON mode, its log lines collected in `logs`.
 */
export function collectorCommandTests(prefix: string): {
  dir: string;
  logs: string[];
  run(argv: string[]): Promise<Record<string, unknown>>;
} {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const logs: string[] = [];
  const saved = process.env[ADMIN_TOKEN_VARIABLE];
  beforeAll(() => {
    process.env[ADMIN_TOKEN_VARIABLE] = TEST_ADMIN_TOKEN;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env[ADMIN_TOKEN_VARIABLE];
    else process.env[ADMIN_TOKEN_VARIABLE] = saved;
    rmSync(dir, { recursive: true, force: true });
  });
  const context = { json: true, log: (message: string) => logs.push(message) };
  // async, so a usage error is a rejection like every other failure of the command
  return { dir, logs, run: async (argv) => runCommandLine(collectorCommand, argv, context) };
}
