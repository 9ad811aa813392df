import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The `calm-ldp` CLI (apps/cli) as the web tests use it: in its own process, from
 * source through tsx, as `pnpm calm-ldp` runs it. The web app does not import the
 * CLI (the CLI imports the web app's server for `serve`); the tests compare the
 * page with the CLI across this process boundary.
 */

/** The repository's root. */
export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const CLI = join("apps", "cli", "src", "cli.ts");
const TSCONFIG = join("apps", "cli", "tsconfig.json");

/** Start `calm-ldp <argv>` (stdin and stdout ignored, stderr piped: servers log there); `env` is added to the test's environment. */
export function spawnCli(argv: readonly string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, ...argv], {
    cwd: ROOT,
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ["ignore", "ignore", "pipe"],
  });
}

/**
 * `calm-ldp collector serve --db <db> --port 0 --allow-origin <origin> [...extra]` in its own
 * process with `adminToken`; resolves with the process and its URL once it listens (60 s at most).
 */
export function serveCollectorCli(
  db: string,
  allowOrigin: string,
  adminToken: string,
  extra: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnCli(
    ["collector", "serve", "--db", db, "--port", "0", "--allow-origin", allowOrigin, ...extra],
    {
      CALM_LDP_ADMIN_TOKEN: adminToken,
    },
  );
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(
      () => reject(new Error(`collector serve did not start in 60 s: ${stderr}`)),
      60_000,
    );
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /collector listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]! });
      }
    });
    child.once("exit", (code) => reject(new Error(`collector serve exited with ${code}: ${stderr}`)));
  });
}

/** Run `calm-ldp <argv> --json` to the end; resolves with its parsed JSON, rejects with its stderr. */
export function runCliJson<T = Record<string, unknown>>(argv: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", "tsx", CLI, ...argv, "--json"],
      {
        cwd: ROOT,
        env: { ...process.env, TSX_TSCONFIG_PATH: TSCONFIG },
        maxBuffer: 256 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`calm-ldp ${argv.join(" ")} failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

/** The words of a command line the page displays (it single-quotes only the data spec). */
export function commandWords(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

/**
 * The command line the page displays (`pnpm calm-ldp run ...`) run by the CLI with
 * `--out <tmp> --workers 1 --json`: its JSON document and the per-repetition runs
 * it wrote to run.json. Throws when the command is not a `pnpm calm-ldp run` line.
 */
export async function runPageCommand<Doc = Record<string, unknown>, Run = unknown>(
  command: string,
): Promise<{ doc: Doc; runs: Run[] }> {
  const words = commandWords(command);
  if (words.slice(0, 3).join(" ") !== "pnpm calm-ldp run")
    throw new Error(`runPageCommand: not a "pnpm calm-ldp run" command: ${command}`);
  const out = mkdtempSync(join(tmpdir(), "calm-web-cli-"));
  const doc = await runCliJson<Doc>([...words.slice(2), "--out", out, "--workers", "1"]);
  const runs = (JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as { runs: Run[] }).runs;
  return { doc, runs };
}
