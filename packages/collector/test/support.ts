import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CalmAggregator, type CalmPlan, estimateCalm } from "@calm-ldp/calm-core";
import { readPlan, type WireReport } from "@calm-ldp/client";
import { createRecordStore, createSchema, type RecordStore } from "@calm-ldp/marginal-algebra";
import { bernoulli, seededRng, uniformInt } from "@calm-ldp/random";
import { decodeReport } from "../src/decode-report.js";

export const TOKEN = "collector-test-admin-token-0123456789";
export const packageDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * A server that a `.ci/<script>` starts for the tests: `process.env[override]`
 * when set, else the URL the script prints last (it installs the Debian package
 * when needed and is idempotent). Only when the script reports that the service
 * cannot be installed here (exit 3: no apt-get, or neither root nor passwordless
 * sudo) and we are not under CI is the answer `unavailable` (the suite skips,
 * loudly); under CI that is a failure.
 */
export function ciService(script: string, override: string): { url?: string; unavailable?: string } {
  const preset = process.env[override];
  if (preset) return { url: preset };
  try {
    const out = execFileSync("bash", [join(packageDir, "..", "..", ".ci", script)], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 600_000,
    });
    return { url: out.trim().split("\n").pop()! };
  } catch (error) {
    const status = (error as { status?: number }).status;
    const stderr = String((error as { stderr?: string }).stderr ?? "").trim();
    if (status === 3 && !process.env.CI) return { unavailable: stderr };
    throw new Error(`.ci/${script} failed (exit ${status}): ${stderr}`);
  }
}

/** The PostgreSQL server `.ci/setup-postgres` starts (or CALM_LDP_TEST_POSTGRES_URL); see {@link ciService}. */
export function postgresServer(): { url?: string; unavailable?: string } {
  return ciService("setup-postgres", "CALM_LDP_TEST_POSTGRES_URL");
}

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "calm-collector-"));
}

/**
 * Correlated records over mixed cardinalities (a Markov chain along the
 * attributes, each copying its predecessor mod c with probability 0.6), seeded.
 * With eps = 1 and k = 2 their CALM plan mixes GRR views (4, 6, 8, 9 cells) and
 * OUE views (12, 16 cells), so both wire kinds travel.
 */
export function mixedRecords(n: number, seed: number, cardinalities = [2, 2, 4, 3, 2, 4, 3, 2]): RecordStore {
  const rng = seededRng(seed);
  const schema = createSchema(cardinalities.map((cardinality, i) => ({ name: `q${i}`, cardinality })));
  const columns = cardinalities.map(() => new Uint8Array(n));
  for (let r = 0; r < n; r++) {
    columns[0]![r] = uniformInt(rng, cardinalities[0]!);
    for (let i = 1; i < cardinalities.length; i++) {
      const c = cardinalities[i]!;
      columns[i]![r] = bernoulli(rng, 0.6) ? columns[i - 1]![r]! % c : uniformInt(rng, c);
    }
  }
  return createRecordStore(schema, { columns });
}

/** The body of `POST /v1/rounds` for a record store's schema. */
export function roundBody(records: RecordStore, eps: number, k: number, n: number): Record<string, unknown> {
  return {
    schema: { attributes: records.schema.attributes.map((a) => ({ name: a.name, labels: [...a.labels] })) },
    eps,
    k,
    n,
  };
}

/** A JSON request with the admin token; resolves with status and parsed body. */
export async function call(
  url: string,
  method: string,
  body?: unknown,
  token: string | undefined = TOKEN,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Create a round; returns its id and plan. */
export async function createRound(base: string, body: unknown): Promise<{ round: string; plan: CalmPlan }> {
  const { status, body: created } = await call(`${base}/v1/rounds`, "POST", body);
  if (status !== 201) throw new Error(`createRound: HTTP ${status} ${JSON.stringify(created)}`);
  return { round: created.round as string, plan: readPlan(created.plan) };
}

/** The in-process CALM pipeline over exactly these wire reports: aggregator, estimate, answers. */
export function inProcessAnswers(
  plan: CalmPlan,
  reports: Iterable<WireReport>,
  queries: readonly (readonly number[])[],
): { aggregator: CalmAggregator; answers: number[][] } {
  const aggregator = new CalmAggregator(plan);
  for (const wire of reports) aggregator.add(decodeReport(plan, wire));
  const synopsis = estimateCalm(plan, aggregator);
  return { aggregator, answers: queries.map((q) => Array.from(synopsis.query(q).cells)) };
}

/** A collector in its own process (test/fixtures/serve.ts), killed with `kill(signal)`. */
export interface CollectorProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): Promise<number | null>;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
}

/** Spawn a collector process and wait (up to 60 s) until it listens. */
export function spawnCollector(
  backend: "duckdb" | "postgres" | "clickhouse",
  location: string,
  port = 0,
): Promise<CollectorProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(packageDir, "test", "fixtures", "serve.ts"), backend, location, String(port)],
    {
      cwd: packageDir,
      env: { ...process.env, CALM_LDP_ADMIN_TOKEN: TOKEN },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`spawnCollector: not listening after 60 s; stderr: ${stderr}`));
    }, 60_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening (http:\/\/127\.0\.0\.1:(\d+))/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          port: Number(match[2]),
          child,
          exited,
          kill: (signal) => {
            child.kill(signal);
            return exited;
          },
          stderr: () => stderr,
        });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`spawnCollector: exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}
