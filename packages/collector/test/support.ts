import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CalmAggregator, type CalmPlan, estimateCalm } from "@calm-ldp/calm-core";
import { createReport, encodeBase64, readPlan, sendReports, type WireReport } from "@calm-ldp/client";
import { fetchCampaignTokenKey, obtainTokens } from "@calm-ldp/client/tokens";
import { createRecordStore, createSchema, type RecordStore } from "@calm-ldp/marginal-algebra";
import { bernoulli, type Rng, seededRng, uniformInt } from "@calm-ldp/random";
import { DuckDBInstance } from "@duckdb/node-api";
import pg from "pg";
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { AcceptedReport, CollectorStorage, StoredRound } from "../src/api.js";
import { decodeReport } from "../src/decode-report.js";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type SimulateUsersResult, simulateUsers } from "../src/simulate-users.js";
import { type RunningCollector, type StartCollectorOptions, startCollector } from "../src/start-collector.js";
import { type IssuerOptions, type RunningIssuer, startIssuer, testAttester } from "../src/tokens/index.js";

export const TOKEN = "collector-test-admin-token-0123456789";
export const packageDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * A server that a `.ci/<script>` starts for the tests: `process.env[override]`
 * when set, else the URL the script prints last (it installs the Debian package
 * when needed and is idempotent). Only when the script reports that the service
 * cannot be installed here (exit 3: no apt-get, or neither root nor passwordless
 * sudo) and we are not under CI is the answer `unavailable` (the suite skips,
 * loudly); under CI that is a failure. When the script installed, created or
 * started anything it says so in one line, printed here with the time it took.
 */
export function ciService(script: string, override: string): { url?: string; unavailable?: string } {
  const preset = process.env[override];
  if (preset) return { url: preset };
  const started = performance.now();
  const run = spawnSync("bash", [join(packageDir, "..", "..", ".ci", script)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 600_000,
  });
  const stderr = (run.stderr ?? "").trim();
  if (run.status === 3 && !process.env.CI) return { unavailable: stderr };
  if (run.status !== 0) {
    const why = run.error ? `, ${run.error.message}` : "";
    throw new Error(`.ci/${script} failed (exit ${run.status}${why}): ${stderr}`);
  }
  // The script's "ready after N s: ..." line: this run installed, created or started the service.
  const ready = /^setup-[a-z]+: ready after .*$/m.exec(stderr)?.[0];
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (ready) console.log(`\n.ci/${script} ran for these tests (${seconds} s in all): ${ready}\n`);
  return { url: run.stdout.trim().split("\n").pop()! };
}

/** A service a suite needs: its URL, or why it cannot be installed here (see {@link ciService}). */
export interface TestService {
  readonly url?: string;
  readonly unavailable?: string;
}

/** The PostgreSQL server `.ci/setup-postgres` starts (or CALM_LDP_TEST_POSTGRES_URL); see {@link ciService}. */
export function postgresServer(): TestService {
  return ciService("setup-postgres", "CALM_LDP_TEST_POSTGRES_URL");
}

/**
 * The two-shard ClickHouse cluster `.ci/setup-clickhouse` starts on 127.0.0.1 (or
 * CALM_LDP_TEST_CLICKHOUSE_URL); see {@link ciService}. Its databases: clickhouse-cluster.ts.
 */
export function clickhouseCluster(): TestService {
  return ciService("setup-clickhouse", "CALM_LDP_TEST_CLICKHOUSE_URL");
}

/**
 * The database servers of a suite that runs on every backend (PostgreSQL and the
 * ClickHouse cluster), each warned about (see {@link warnSkipped}) when it cannot
 * be installed here; the suite's tests on it then skip (never under CI).
 */
export function databaseServers(suite: string): { postgres: TestService; clickhouse: TestService } {
  const servers = { postgres: postgresServer(), clickhouse: clickhouseCluster() };
  warnSkipped(`${suite} on PostgreSQL: it cannot be installed here`, servers.postgres.unavailable);
  warnSkipped(`${suite} on ClickHouse: it cannot be installed here`, servers.clickhouse.unavailable);
  return servers;
}

/**
 * `describe(title, () => body(service))` for a suite that needs `service`: when
 * the service cannot be installed here (never under CI, see {@link ciService})
 * the suite is skipped, loudly.
 */
export function describeWith<S extends { readonly unavailable?: string }>(
  service: S,
  title: string,
  body: (service: S) => void,
): void {
  warnSkipped(`${title}: it cannot be installed here`, service.unavailable);
  describe.skipIf(service.unavailable !== undefined)(title, () => body(service));
}

/**
 * A fresh database `calm_test_<name>_<pid>_<time>` on the PostgreSQL server at
 * `serverUrl`: its connection URL, and `drop()` (which forces out any connection left).
 */
export async function freshPostgresDatabase(
  serverUrl: string,
  name: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const database = `calm_test_${name}_${process.pid}_${Date.now()}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${database}`);
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
}

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "calm-collector-"));
}

/** A fresh temporary directory for the enclosing describe block (or file), removed after it. */
export function suiteTempDir(): string {
  const dir = tempDir();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `body(dir)` on a fresh temporary directory, removed afterwards whatever happens. */
export async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir();
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A fresh database on the PostgreSQL server at `serverUrl` for the enclosing
 * describe block (see {@link freshPostgresDatabase}): its `url` is set before the
 * block's tests run; dropped after them.
 */
export function suitePostgresDatabase(serverUrl: string, name: string): { readonly url: string } {
  const suite = { url: "" };
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>> | undefined;
  beforeAll(async () => {
    database = await freshPostgresDatabase(serverUrl, name);
    suite.url = database.url;
  });
  afterAll(() => database?.drop());
  return suite;
}

/** `body(url)` on a fresh database of the PostgreSQL server at `serverUrl` (see {@link freshPostgresDatabase}), dropped afterwards. */
export async function withPostgresDatabase<T>(
  serverUrl: string,
  name: string,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const database = await freshPostgresDatabase(serverUrl, name);
  try {
    return await body(database.url);
  } finally {
    await database.drop();
  }
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

/** The i-th fixed id of the storage tests (reports and rounds): a UUID whose last group is i in hex. */
export const fixedId = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

/** The accepted report `fixedId(i)` of `view` supporting `cells`, for storage tests that bypass HTTP. */
export const acceptedReport = (i: number, view: number, cells: number[]): AcceptedReport => ({
  id: fixedId(i),
  view,
  cells,
});

/** A round to hand a storage directly: `plan` under `id`, created 2026-01-01, with a placeholder request for `n` users. */
export function roundToStore(plan: CalmPlan, id: string, n = 1000): Omit<StoredRound, "no"> {
  return {
    id,
    createdAt: "2026-01-01T00:00:00Z",
    plan,
    request: { schema: { attributes: [] }, eps: 1, k: 2, n },
  };
}

/** The client's reports (`createReport` through `plan`, drawing from `rng`) of the records in rows [from, from + count). */
export function reportsOf(
  plan: CalmPlan,
  records: RecordStore,
  from: number,
  count: number,
  rng: Rng,
): WireReport[] {
  return Array.from({ length: count }, (_, i) =>
    createReport(
      plan,
      records.columns.map((column) => column[from + i]!),
      { rng },
    ),
  );
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

/**
 * Create a campaign of four binary attributes `b0..b3` (labels "0", "1"; eps 1,
 * k 2, n 1000, plus `extra`, e.g. `roundEvery`) on the collector at `url`; checks
 * the 201. Returns its id, first round and plan.
 */
export async function createBinaryCampaign(url: string, extra: Record<string, unknown> = {}) {
  const attributes = Array.from({ length: 4 }, (_, i) => ({ name: `b${i}`, labels: ["0", "1"] }));
  const created = await call(`${url}/v1/campaigns`, "POST", {
    schema: { attributes },
    eps: 1,
    k: 2,
    n: 1000,
    ...extra,
  });
  expect(created.status).toBe(201);
  return {
    campaign: created.body.campaign as string,
    round: created.body.round as string,
    plan: readPlan(created.body.plan),
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

/** Create a round for the schema of `records` (eps 1, k 2, `n` users) on the collector at `base`; returns its id and plan. */
export function createRoundFor(base: string, records: RecordStore, n: number) {
  return createRound(base, roundBody(records, 1, 2, n));
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

/**
 * Spawn a collector process and wait (up to 60 s) until it listens, on `port`
 * (default: a {@link freePort}, so a process restarted on it finds it free).
 */
export async function spawnCollector(
  backend: "duckdb" | "postgres" | "clickhouse",
  location: string,
  port?: number,
): Promise<CollectorProcess> {
  port ??= await freePort();
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

/** Ports {@link freePort} picks from: below Linux's ephemeral range (32768-60999 by default). */
const FREE_PORTS = { from: 20_000, to: 32_767 };

/** Whether a server can listen on 127.0.0.1:`port` now (it is closed again at once). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that is free now, for a server started later (a process
 * spawned, a collector restarted on its port) or for a URL nobody answers. Not
 * asked from the kernel (`listen(0)`): that gives a port of the ephemeral range,
 * which any outgoing connection may get as its local port meanwhile (open, or in
 * TIME_WAIT for a minute), and the later bind then fails with EADDRINUSE (or a
 * `listen(0)` elsewhere answers on it). Ports below the range are never given out
 * so; this one is drawn at random there (concurrent test files draw apart) and
 * the next is tried while one is taken. Cost: one bind attempt per taken port.
 */
export async function freePort(): Promise<number> {
  const span = FREE_PORTS.to - FREE_PORTS.from + 1;
  const first = randomInt(span);
  for (let i = 0; i < 1000; i++) {
    const port = FREE_PORTS.from + ((first + i) % span);
    if (await canListen(port)) return port;
  }
  throw new Error(`freePort: no free port among 1000 tried from ${FREE_PORTS.from + first}`);
}

/** Resolve after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Print that a suite is skipped because `what` cannot run here (only outside CI; see {@link ciService}). */
export function warnSkipped(suite: string, unavailable: string | undefined): void {
  if (unavailable) console.warn(`\n*** SKIPPED: ${suite}: ${unavailable} ***\n`);
}

/**
 * Collector processes a test spawns (see {@link spawnCollector}); `killAll()` in
 * the suite's `afterAll` kills those still running (SIGKILL unless told).
 */
export class CollectorProcesses {
  readonly running: CollectorProcess[] = [];
  async spawn(backend: "duckdb" | "postgres" | "clickhouse", location: string, port?: number) {
    const p = await spawnCollector(backend, location, port);
    this.running.push(p);
    return p;
  }
  async killAll(signal: NodeJS.Signals = "SIGKILL"): Promise<void> {
    for (const p of this.running) if (p.child.exitCode === null) await p.kill(signal);
  }
}

/**
 * The collector processes of a describe block (or file): every one still running
 * after it is killed with `signal` (SIGKILL: as a crash; SIGTERM: a clean stop).
 */
export function suiteProcesses(signal: NodeJS.Signals = "SIGKILL"): CollectorProcesses {
  const processes = new CollectorProcesses();
  afterAll(() => processes.killAll(signal));
  return processes;
}

/**
 * In-process collectors on DuckDB files of one temporary directory, for a
 * describe block: after it, every collector started is closed and the directory
 * removed. `start(file, options, wrap)` opens `dir/file` and starts a collector on
 * it (or on `wrap(storage)`, e.g. an {@link interceptedStorage}) with the test
 * admin token; returns the collector and the storage it uses.
 */
export function duckdbCollectors() {
  const dir = suiteTempDir();
  const started: RunningCollector[] = [];
  afterAll(async () => {
    for (const collector of started) await collector.close();
  });
  return {
    dir,
    async start(
      file: string,
      options: Partial<StartCollectorOptions> = {},
      wrap: (storage: CollectorStorage) => CollectorStorage = (storage) => storage,
    ) {
      const storage = wrap(await openDuckDbStorage(join(dir, file)));
      const collector = await startCollector({ storage, adminToken: TOKEN, ...options });
      started.push(collector);
      return { collector, storage };
    },
  };
}

/**
 * A collector of {@link duckdbCollectors} on `file` that verifies the tokens of
 * an issuer apart (`tokens.issuerUrl`) to listen on 127.0.0.1:`port`, a free port
 * the caller starts that issuer on (see {@link suiteIssuers}).
 */
export async function collectorWithIssuerApart(
  collectors: ReturnType<typeof duckdbCollectors>,
  file: string,
) {
  const port = await freePort();
  const { collector } = await collectors.start(file, { tokens: { issuerUrl: `http://127.0.0.1:${port}` } });
  return { collector, port };
}

/**
 * Token issuers apart from the collector (`startIssuer`, the test attester unless
 * told) for a describe block: `start(collectorUrl, options)` starts one; every
 * one started is closed after the block.
 */
export function suiteIssuers() {
  const started: RunningIssuer[] = [];
  afterAll(async () => {
    for (const issuer of started) await issuer.close();
  });
  return {
    async start(collectorUrl: string, options: Partial<IssuerOptions> = {}): Promise<RunningIssuer> {
      const issuer = await startIssuer({ collectorUrl, attester: testAttester(), ...options });
      started.push(issuer);
      return issuer;
    },
  };
}

/** One campaign token of `campaign` from the issuer at `url`, for `device` (the test attester's attestation). */
export const campaignToken = async (url: string, campaign: string, device: string) =>
  (await obtainTokens(url, await fetchCampaignTokenKey(url, campaign), 1, { attestation: device }))[0]!;

/** A round for `n` users of {@link mixedRecords} (seeded), created on the collector at `url` (eps 1, k 2). */
export async function mixedRound(url: string, n: number, seed: number) {
  const records = mixedRecords(n, seed);
  const { round, plan } = await createRoundFor(url, records, n);
  return { records, round, plan };
}

/**
 * Simulated users reporting into a round while a test watches, keeping what was
 * acknowledged (see {@link startLoad}).
 */
export interface Load {
  /** Every acknowledged report, by id. */
  readonly acknowledged: Map<string, WireReport>;
  /** The first `keepBatches` acknowledged batches, as sent. */
  readonly batches: WireReport[][];
  /** The load's result, once every user is acknowledged or given up on. */
  readonly done: Promise<SimulateUsersResult>;
  /** Wait until at least `count` reports are acknowledged (polling; at most 60 s, then the test fails). */
  until(count: number): Promise<void>;
  /** The result, checked: every user acknowledged, none rejected or given up on (plus any `extra` fields). */
  finish(extra?: Partial<SimulateUsersResult>): Promise<SimulateUsersResult>;
  /**
   * Send each kept batch to every collector in `urls` at once (the same ids racing
   * in concurrent transactions): each is acknowledged in full as duplicates, nothing
   * is stored again. Returns how many reports were sent in all.
   */
  resend(urls: readonly string[]): Promise<number>;
  /**
   * The end of the load, on running collectors: the status (asked of the first of
   * `urls`) counts every acknowledged report once (`accepted`, and per view), and
   * each query's marginal, asked of every collector, has n = the acknowledged
   * reports and is the in-process CALM answer over exactly them, cell for cell.
   * `queries` maps the `attrs` text sent to the attribute indexes it names (none:
   * no marginals asked). Returns the status body and the in-process aggregator.
   */
  expectCountedOnce(
    urls: string | readonly string[],
    queries?: Readonly<Record<string, readonly number[]>>,
  ): Promise<{ status: Record<string, unknown>; aggregator: CalmAggregator | undefined }>;
}

/** How {@link startLoad} runs `simulateUsers` (8 senders of 100 reports unless told). */
export interface LoadOptions {
  readonly seed: number;
  readonly concurrency?: number;
  readonly batchSize?: number;
  readonly retryForMs?: number;
  /** How many acknowledged batches to keep for {@link Load.resend} (default none). */
  readonly keepBatches?: number;
}

/**
 * A round of `n` {@link mixedRecords} users (seed `seed`) created on the first
 * collector of `url`, and its users' load against all of them (see
 * {@link startLoad}; seed `seed + 1`). Does not wait for the end.
 */
export async function startMixedLoad(
  url: string | readonly string[],
  n: number,
  seed: number,
  options: Omit<LoadOptions, "seed"> = {},
) {
  const { records, round, plan } = await mixedRound(typeof url === "string" ? url : url[0]!, n, seed);
  return { records, round, plan, load: startLoad(url, round, plan, records, { ...options, seed: seed + 1 }) };
}

/**
 * Start `simulateUsers` for every record (seeded with `seed`; 8 senders of 100
 * reports by default) against one or more collectors. Does not wait for the end.
 */
export function startLoad(
  url: string | readonly string[],
  round: string,
  plan: CalmPlan,
  records: RecordStore,
  options: LoadOptions,
): Load {
  const acknowledged = new Map<string, WireReport>();
  const batches: WireReport[][] = [];
  const keep = options.keepBatches ?? 0;
  const done = simulateUsers({
    url,
    round,
    plan,
    records,
    concurrency: options.concurrency ?? 8,
    batchSize: options.batchSize ?? 100,
    rng: seededRng(options.seed),
    ...(options.retryForMs === undefined ? {} : { retryForMs: options.retryForMs }),
    onAcknowledged: (reports) => {
      for (const report of reports) acknowledged.set(report.id, report);
      if (batches.length < keep) batches.push([...reports]);
    },
  });
  return {
    acknowledged,
    batches,
    done,
    async until(count) {
      for (let waited = 0; acknowledged.size < count && waited < 60_000; waited += 10) await sleep(10);
      expect(acknowledged.size).toBeGreaterThanOrEqual(count);
    },
    async finish(extra = {}) {
      const result = await done;
      const n = records.size;
      expect(result).toMatchObject({ users: n, acknowledged: n, rejected: 0, unacknowledged: 0, ...extra });
      return result;
    },
    async resend(urls) {
      const acks = await Promise.all(
        batches.flatMap((batch) => urls.map((u) => sendReports(u, round, batch))),
      );
      for (const ack of acks) expect(ack).toMatchObject({ stored: 0, duplicates: ack.acknowledged });
      return batches.reduce((sum, batch) => sum + urls.length * batch.length, 0);
    },
    async expectCountedOnce(urls, queries = {}) {
      const all = typeof urls === "string" ? [urls] : urls;
      const n = acknowledged.size;
      const status = await call(`${all[0]}/v1/rounds/${round}/status`, "GET");
      expect(status.body.accepted).toBe(n);
      const perView = new Array<number>(plan.views.length).fill(0);
      for (const report of acknowledged.values()) perView[report.view]!++;
      expect(status.body.perView).toEqual(perView);
      const attrs = Object.keys(queries);
      if (attrs.length === 0) return { status: status.body, aggregator: undefined };
      const { aggregator, answers } = inProcessAnswers(plan, acknowledged.values(), Object.values(queries));
      for (const [i, text] of attrs.entries()) {
        for (const base of all) {
          const answer = await call(`${base}/v1/rounds/${round}/marginals?attrs=${text}`, "GET");
          expect(answer.body.n, text).toBe(n);
          expect(answer.body.cells, text).toEqual(answers[i]);
        }
      }
      return { status: status.body, aggregator };
    },
  };
}

/**
 * Two collector processes on one database: a round of `n` {@link mixedRecords}
 * users (seed `seed`) made through `a` is served by `b`; the load (seed `seed + 1`)
 * goes through both, none acknowledged as a duplicate; the first 40 batches are
 * sent again to both at once (the same ids racing; all acknowledged, none stored
 * again); every report is counted once and three marginals (2-, 2- and 4-way) are
 * the in-process answers, cell for cell, on both. Returns the round, the load and
 * the in-process aggregator.
 */
export async function expectSharedStore(a: CollectorProcess, b: CollectorProcess, n: number, seed: number) {
  const { round, load } = await startMixedLoad([a.url, b.url], n, seed, { keepBatches: 40 });
  expect((await call(`${b.url}/v1/rounds/${round}/plan`, "GET", undefined, undefined)).status).toBe(200);
  await load.finish({ duplicates: 0 });
  const raced = await load.resend([a.url, b.url]);
  const { status, aggregator } = await load.expectCountedOnce([b.url, a.url], {
    "q0,q1": [0, 1],
    "q2,q5": [2, 5],
    "q0,q2,q3,q7": [0, 2, 3, 7],
  });
  expect(status).toMatchObject({ accepted: n, duplicates: raced, rejected: {} });
  return { round, load, aggregator: aggregator! };
}

/**
 * `storage` with its calls intercepted, to make it fail on purpose: each method
 * call (all are async) runs as `intercept(method, call)`, where `call()` runs the
 * real one; `close` passes straight through.
 */
export function interceptedStorage(
  storage: CollectorStorage,
  intercept: (method: string, call: () => Promise<unknown>) => Promise<unknown>,
): CollectorStorage {
  return new Proxy(storage, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      const real = (...args: unknown[]) =>
        (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      if (key === "close") return real;
      return (...args: unknown[]) => intercept(String(key), () => real(...args));
    },
  });
}

/** `storage` as a storage without its optional method `method` (the collector takes its fallback). */
export function withoutMethod(storage: CollectorStorage, method: keyof CollectorStorage): CollectorStorage {
  return new Proxy(storage, {
    get(target, key) {
      if (key === method) return undefined;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The storage's GROUP BY support counts of `round` are the in-process aggregator's, view for view. */
export async function expectStoredCounts(
  storage: CollectorStorage,
  round: string,
  aggregator: CalmAggregator,
): Promise<void> {
  const counts = await storage.supportCounts((await storage.findRound(round))!);
  aggregator.views.forEach((view, v) => {
    expect(Array.from(counts.support[v]!), `view ${v}`).toEqual(Array.from(view.counts()));
  });
}

/** The report ids in a DuckDB collector file (opened directly; no collector may hold it), one per stored row. */
export async function storedReportIds(file: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  try {
    const ids = await connection.runAndReadAll("SELECT report_id::VARCHAR FROM calm_reports");
    return ids.getColumns()[0] as string[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** POST a batch of reports as a device does (no admin token); resolves with status and parsed body. */
export function postReports(url: string, round: string, reports: readonly WireReport[]) {
  return call(`${url}/v1/rounds/${round}/reports`, "POST", { round, reports }, undefined);
}

/** The base64 bits of a unary report of `cells` cells with every cell's bit set (padding bits clear). */
export function allOnesBits(cells: number): string {
  const bytes = new Uint8Array(Math.ceil(cells / 8));
  for (let x = 0; x < cells; x++) bytes[x >> 3]! |= 0x80 >> (x & 7);
  return encodeBase64(bytes);
}

/** A report of `view` whose every cell's bit is set: far above an honest unary report's ones, so the unary check drops it. */
export function allOnesReport(plan: CalmPlan, view: number): WireReport {
  return { ...createReport(plan, [0, 1, 2], { view }), bits: allOnesBits(plan.views[view]!.cells) };
}

/** A round request of three attributes of 4 values, k = 2, every view OUE (all-ones is in every view's drop region at 1%). */
export const UNARY_ROUND = {
  schema: { attributes: ["a", "b", "c"].map((name) => ({ name, cardinality: 4 })) },
  n: 10_000,
  eps: 1,
  k: 2,
  oracle: "oue",
};
