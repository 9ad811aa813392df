import { type ChildProcess, spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { runCommandLine } from "../cli-kit.js";
import { ADMIN_TOKEN_VARIABLE, collectorCommand } from "./collector.js";

/**
 * A loopback port that is free now, for a server started later (a process
 * spawned, a collector restarted on its port): drawn at random from 20000-32767,
 * below Linux's ephemeral range, so no outgoing connection gets it as its local
 * port meanwhile (which makes the later bind fail with EADDRINUSE, even from
 * TIME_WAIT). The next is tried while one is taken. (As the collector's tests'
 * `freePort`, test/support.ts.)
 */
export async function freePort(): Promise<number> {
  const from = 20_000;
  const span = 32_768 - from;
  const first = randomInt(span);
  for (let i = 0; i < 1000; i++) {
    const port = from + ((first + i) % span);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`freePort: no free port among 1000 tried from ${from + first}`);
}

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

const root = fileURLToPath(new URL("../../../..", import.meta.url));

/** A `calm-ldp collector serve` process (see {@link spawnServe}). */
export interface ServeProcess {
  readonly child: ChildProcess;
  /** What it wrote so far. */
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<number | null>;
  /** The first match of `pattern` on its stderr (waited for, at most 60 s). */
  started(pattern: RegExp): Promise<RegExpExecArray>;
}

/**
 * `calm-ldp collector serve <args> --json` as a real CLI process from the
 * repository root, with CALM_LDP_ADMIN_TOKEN set to {@link TEST_ADMIN_TOKEN}.
 */
export function spawnServe(args: readonly string[]): ServeProcess {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "apps/cli/src/cli.ts", "collector", "serve", ...args, "--json"],
    {
      cwd: root,
      env: {
        ...process.env,
        [ADMIN_TOKEN_VARIABLE]: TEST_ADMIN_TOKEN,
        TSX_TSCONFIG_PATH: "apps/cli/tsconfig.json",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const output = { stdout: "", stderr: "" };
  child.stdout!.on("data", (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const started = async (pattern: RegExp) => {
    for (let waited = 0; waited < 60_000; waited += 50) {
      const match = pattern.exec(output.stderr);
      if (match) return match;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`serve did not print ${pattern} in 60 s: ${output.stderr}`);
  };
  return { child, output, exited, started };
}
