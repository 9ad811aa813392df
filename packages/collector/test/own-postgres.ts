import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, packageDir } from "./support.js";

/**
 * A private PostgreSQL cluster for fault tests, which stop and restart it: its
 * own data directory (a temporary one) and port, so the shared server that
 * `.ci/setup-postgres` runs for the other tests is never touched. Uses the
 * server binaries that script installs (Debian's `postgresql`, run as the
 * `postgres` user when we are root, as the script does). Loopback only, trust
 * authentication (the cluster lives for one test file).
 */
export interface OwnPostgres {
  readonly url: string;
  readonly port: number;
  /** `pg_ctl restart -m immediate`: every backend killed, crash recovery on start. */
  restartImmediate(): void;
  /** `pg_ctl stop -m immediate`. */
  stopImmediate(): void;
  /** `pg_ctl start`, waiting until the server accepts connections. */
  start(): void;
  /** Stop the server and delete its data directory. */
  destroy(): void;
}

/** The newest installed server's bin directory, installing PostgreSQL via `.ci/setup-postgres` when absent. */
export function postgresBinaries(): { bin?: string; unavailable?: string } {
  const find = () => {
    const root = "/usr/lib/postgresql";
    if (!existsSync(root)) return undefined;
    const versions = readdirSync(root)
      .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")) && existsSync(join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(a) - Number(b));
    return versions.length === 0 ? undefined : join(root, versions.at(-1)!, "bin");
  };
  let bin = find();
  if (bin) return { bin };
  try {
    execFileSync("bash", [join(packageDir, "..", "..", ".ci", "setup-postgres")], {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 600_000,
    });
  } catch (error) {
    const status = (error as { status?: number }).status;
    const stderr = String((error as { stderr?: Buffer }).stderr ?? "").trim();
    if (status === 3 && !process.env.CI) return { unavailable: stderr };
    throw new Error(`.ci/setup-postgres failed (exit ${status}): ${stderr}`);
  }
  bin = find();
  if (!bin)
    throw new Error("PostgreSQL was installed but no server binaries are in /usr/lib/postgresql/*/bin");
  return { bin };
}

/** initdb a cluster in a fresh temporary directory and start it on a free port. */
export async function startOwnPostgres(bin: string): Promise<OwnPostgres> {
  const root = process.getuid?.() === 0;
  const data = mkdtempSync(join(tmpdir(), "calm-own-pg-"));
  const port = await freePort();
  const as = (command: string, args: string[]) => {
    const [file, argv] = root ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
    execFileSync(file, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  };
  if (root) {
    try {
      execFileSync("id", ["postgres"], { stdio: "ignore" });
    } catch {
      execFileSync("useradd", [
        "--system",
        "--home-dir",
        "/var/lib/postgresql",
        "--shell",
        "/bin/bash",
        "postgres",
      ]);
    }
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    chownSync(data, uid, -1);
  }
  const pgData = join(data, "pgdata");
  const log = join(data, "server.log");
  as(join(bin, "initdb"), ["-D", pgData, "-U", "calm", "--auth=trust", "-E", "UTF8", "--no-locale"]);
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${data} -c max_connections=100 -c fsync=on`;
  const ctl = (...args: string[]) => {
    try {
      as(join(bin, "pg_ctl"), ["-D", pgData, "-l", log, "-w", "-t", "60", ...args]);
    } catch (error) {
      const tail = existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-15).join("\n") : "";
      throw new Error(`pg_ctl ${args.join(" ")} failed: ${(error as Error).message}\n${tail}`);
    }
  };
  ctl("-o", options, "start");
  return {
    url: `postgres://calm@127.0.0.1:${port}/postgres`,
    port,
    restartImmediate: () => ctl("-m", "immediate", "restart"),
    stopImmediate: () => ctl("-m", "immediate", "stop"),
    start: () => ctl("-o", options, "start"),
    destroy: () => {
      try {
        ctl("-m", "immediate", "stop");
      } catch {
        // already stopped
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}
