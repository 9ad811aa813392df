import type { CalmPlan } from "@calm-ldp/calm-core";
import { readPlan } from "@calm-ldp/client";
import { fetchRoundPlan, simulateUsers } from "@calm-ldp/collector";
import { generateFromSpec, parseDataSpec, sampleUsers } from "@calm-ldp/datasets";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { type Command, type CommandContext, UsageError } from "../cli-kit.js";
import { loadPopulation } from "../harness/load.js";
import {
  ATTACK_OPTION_SPECS,
  type AttackOptions,
  attackRound,
  checkAttackOptions,
  honestReporter,
} from "./collector-attack.js";
import {
  type CampaignCall,
  type CampaignOptions,
  createCampaign,
  queryCampaign,
  simulateCampaign,
} from "./collector-campaign.js";
import { ISSUER_OPTION_SPECS, ISSUER_OPTIONS, type IssuerCliOptions, runIssuer } from "./collector-issuer.js";
import { migrate, SERVE_OPTION_SPECS, SERVE_OPTIONS, type ServeOptions, serve } from "./collector-serve.js";

export { parseDuration } from "./collector-serve.js";

/** The environment variable holding the admin bearer token. */
export const ADMIN_TOKEN_VARIABLE = "CALM_LDP_ADMIN_TOKEN";
const SUBCOMMANDS = [
  "serve",
  "simulate",
  "status",
  "query",
  "close",
  "campaign",
  "migrate",
  "issuer",
] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** The collector command's options: the campaign subcommands' (`CampaignOptions`) and the rest. */
interface CollectorOptions
  extends Omit<CampaignOptions, "url">,
    ServeOptions,
    AttackOptions,
    IssuerCliOptions {
  url?: string;
  round?: string;
  data: string;
  d: number;
  "retry-for": number;
  oracle?: string;
}

/** Which options each subcommand reads (anything else given is a usage error). */
const ALLOWED: Record<Subcommand, readonly string[]> = {
  serve: SERVE_OPTIONS,
  issuer: ISSUER_OPTIONS,
  migrate: ["config", "db", "postgres", "clickhouse"],
  simulate: [
    "url",
    "round",
    "data",
    "n",
    "d",
    "k",
    "eps",
    "theta",
    "concurrency",
    "batch",
    "seed",
    "perturb-seed",
    "retry-for",
    "campaign",
    "rounds",
    "change-rate",
    "max-eps",
    "attack",
    "fraction",
    "target",
    "oracle",
  ],
  status: ["url", "round"],
  query: ["url", "round", "attrs", "campaign", "from", "to", "interval"],
  close: ["url", "round"],
  campaign: ["url", "data", "n", "d", "k", "eps", "theta", "seed", "round-every", "instant-eps"],
};

function adminToken(subcommand: string): string {
  const token = process.env[ADMIN_TOKEN_VARIABLE];
  if (!token || token.length < 16)
    throw new UsageError(
      `collector ${subcommand}: set ${ADMIN_TOKEN_VARIABLE} to the admin token (at least 16 characters)`,
    );
  return token;
}

function required<T>(subcommand: string, name: string, value: T | undefined): T {
  if (value === undefined) throw new UsageError(`collector ${subcommand}: --${name} is required`);
  return value;
}

/** An admin request: JSON in and out, the collector's error reason in the message. */
async function adminCall(
  base: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(`${base.replace(/\/+$/, "")}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new Error(`cannot reach the collector at ${base}: ${(error as Error).message}`);
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(
      `collector answered HTTP ${response.status} ${String(answer.reason)}: ${String(answer.message)}`,
    );
  return answer;
}

/** A campaign subcommand's call: the options with the collector's URL, the admin token, the admin request. */
function campaignCall(subcommand: string, options: CollectorOptions, url: string): CampaignCall {
  return { options: { ...options, url }, token: adminToken(subcommand), adminCall };
}

/** The simulated users' records: n rows of the --data spec. */
async function loadRecords(options: CollectorOptions): Promise<RecordStore> {
  let spec: ReturnType<typeof parseDataSpec>;
  try {
    spec = parseDataSpec(options.data);
  } catch (error) {
    throw new UsageError(`collector simulate: --data: ${(error as Error).message}`);
  }
  if (spec.kind === "synthetic-iid" || spec.kind === "synthetic-bn")
    return generateFromSpec(spec, { n: options.n, d: options.d, seed: options.seed }).store;
  const population = await loadPopulation(options.data, options.d);
  return sampleUsers(population!, options.n, seededRng(options.seed, 3)).store;
}

async function simulate(options: CollectorOptions, context: CommandContext): Promise<unknown> {
  const url = required("simulate", "url", options.url);
  if (options.campaign !== undefined && options.round !== undefined)
    throw new UsageError("collector simulate: give --campaign or --round, not both");
  if (options.campaign === undefined && (options.rounds !== 1 || options["change-rate"] !== 0))
    throw new UsageError("collector simulate: --rounds and --change-rate need --campaign");
  checkAttackOptions(options);
  if (options.campaign !== undefined && options.attack !== undefined)
    throw new UsageError("collector simulate: --attack runs on one round, not with --campaign");
  const records = await loadRecords(options);
  if (options.campaign !== undefined)
    return simulateCampaign(campaignCall("simulate", options, url), records, context);
  let round = options.round;
  let plan: CalmPlan;
  if (round === undefined) {
    const created = await adminCall(url, "/v1/rounds", adminToken("simulate"), {
      schema: { attributes: records.schema.attributes.map((a) => ({ name: a.name, labels: [...a.labels] })) },
      eps: options.eps,
      k: options.k,
      n: options.n,
      ...(options.theta !== undefined ? { theta: options.theta } : {}),
      ...(options.oracle !== undefined ? { oracle: options.oracle } : {}),
    });
    round = created.round as string;
    plan = readPlan(created.plan);
    context.log(`collector simulate: created round ${round} (l = ${plan.l}, m = ${plan.m})`);
  } else {
    // Retried like the batches (--retry-for) while the collector is down or answers 5xx.
    const fetched = await fetchRoundPlan(url, round, { retryForMs: options["retry-for"] * 1000 });
    plan = fetched.plan;
    if (fetched.retries > 0)
      context.log(`collector simulate: fetched the plan of round ${round} after ${fetched.retries} retries`);
    const ours = records.schema.attributes.map((a) => a.labels.length).join(",");
    const theirs = plan.schema.attributes.map((a) => a.labels.length).join(",");
    if (ours !== theirs)
      throw new UsageError(
        `collector simulate: the data's cardinalities (${ours}) do not match round ${round}'s schema (${theirs})`,
      );
  }
  context.log(
    `collector simulate: ${options.n} users, ${options.concurrency} concurrent batches of ${options.batch}`,
  );
  const rng = options["perturb-seed"] !== undefined ? seededRng(options["perturb-seed"], 7) : undefined;
  const { key, reportFor } = await honestReporter(url, round, plan, rng);
  const result = await simulateUsers({
    url,
    round,
    plan,
    records,
    ...(reportFor ? { reportFor } : {}),
    concurrency: options.concurrency,
    batchSize: options.batch,
    retryForMs: options["retry-for"] * 1000,
    ...(rng ? { rng } : {}),
  });
  const attack = await attackRound(
    options,
    { url, round, plan, adminToken: adminToken("simulate"), records },
    key,
    rng,
  );
  if (result.unacknowledged > 0)
    context.log(
      `collector simulate: ${result.unacknowledged} reports were never acknowledged (collector unreachable)`,
    );
  return {
    round,
    acknowledged: result.acknowledged,
    rejected: result.rejected,
    seconds: result.seconds,
    reportsPerSecond: result.reportsPerSecond,
    users: result.users,
    duplicates: result.duplicates,
    unacknowledged: result.unacknowledged,
    retries: result.retries,
    ...(result.rejected > 0 ? { rejectedReasons: result.rejectedReasons } : {}),
    protected: key !== undefined,
    ...(attack ? { attack } : {}),
  };
}

async function status(options: CollectorOptions): Promise<unknown> {
  const url = required("status", "url", options.url);
  const round = required("status", "round", options.round);
  const answer = await adminCall(url, `/v1/rounds/${encodeURIComponent(round)}/status`, adminToken("status"));
  return {
    round: answer.round,
    accepted: answer.accepted,
    rejected: answer.rejected,
    perView: answer.perView,
    duplicates: answer.duplicates,
    closedAt: answer.closedAt ?? null,
    idsDroppedAt: answer.idsDroppedAt ?? null,
    idsHeld: answer.idsHeld,
    flags: answer.flags ?? [],
  };
}

/** Close a round: it keeps its counts, refuses new reports, and drops its report ids after the retention. */
async function close(options: CollectorOptions): Promise<unknown> {
  const url = required("close", "url", options.url);
  const round = required("close", "round", options.round);
  const answer = await adminCall(
    url,
    `/v1/rounds/${encodeURIComponent(round)}/close`,
    adminToken("close"),
    {},
  );
  return {
    round: answer.round,
    closedAt: answer.closedAt,
    idsDropAfter: answer.idsDropAfter,
    idsDroppedAt: answer.idsDroppedAt,
  };
}

async function query(options: CollectorOptions): Promise<unknown> {
  const url = required("query", "url", options.url);
  const attrs = required("query", "attrs", options.attrs);
  if (options.campaign !== undefined) {
    if (options.round !== undefined)
      throw new UsageError("collector query: give --campaign or --round, not both");
    return queryCampaign(campaignCall("query", options, url));
  }
  if (options.from !== undefined || options.to !== undefined)
    throw new UsageError("collector query: --from and --to need --campaign");
  const round = required("query", "round", options.round);
  const interval = options.interval === undefined ? "" : `&interval=${options.interval}`;
  const answer = await adminCall(
    url,
    `/v1/rounds/${encodeURIComponent(round)}/marginals?attrs=${encodeURIComponent(attrs)}${interval}`,
    adminToken("query"),
  );
  return {
    attrs: answer.attrs,
    cells: answer.cells,
    n: answer.n,
    expectedSse: answer.expectedSse,
    cardinalities: answer.cardinalities,
    method: answer.method,
    eps: answer.eps,
    round: answer.round,
    ...(options.interval === undefined
      ? {}
      : {
          level: answer.level,
          lower: answer.lower,
          upper: answer.upper,
          standardError: answer.standardError,
          intervalMethod: answer.intervalMethod,
          center: answer.center,
        }),
  };
}

export const collectorCommand: Command = {
  name: "collector",
  summary:
    "Run a CALM collector (serve; migrate brings a database's schema to this version), send it simulated users over HTTP (simulate), read a round's counts (status) or a marginal (query), close a round (close), create a campaign of rounds under one plan (campaign), run the token issuer apart (issuer). Admin token: $CALM_LDP_ADMIN_TOKEN.",
  positionals: ["serve|simulate|status|query|close|campaign|migrate|issuer"],
  options: {
    ...SERVE_OPTION_SPECS,
    ...ISSUER_OPTION_SPECS,
    db: { type: "string", description: "serve/migrate: DuckDB file (serve's default collector.duckdb)" },
    postgres: {
      type: "string",
      description:
        "serve/migrate: PostgreSQL URL instead of DuckDB (postgres://user:pw@host:port/db; or CALM_LDP_POSTGRES_URL)",
    },
    clickhouse: {
      type: "string",
      description:
        "serve/migrate: ClickHouse cluster instead of DuckDB, one HTTP endpoint per shard (http://host:port,host:port/database?cluster=name; or CALM_LDP_CLICKHOUSE_URL)",
    },
    host: { type: "string", description: "serve: interface to listen on", default: "127.0.0.1" },
    port: {
      type: "integer",
      description: "serve: TCP port (0: any free port)",
      default: 8787,
      min: 0,
      max: 65535,
    },
    "max-batch": { type: "integer", description: "serve: most reports per POST", default: 1000, min: 1 },
    "allow-origin": {
      type: "string",
      description:
        "serve: origins whose web pages may fetch plans and post reports, comma-separated (https://host[:port],...); default none: no cross-origin access. Admin endpoints are never cross-origin",
    },
    "id-retention": {
      type: "string",
      description:
        "serve: how long a closed round keeps its report ids before only its counts remain (90s, 15m, 1h, 7d, 0)",
      default: "1h",
    },
    "rate-limit": {
      type: "string",
      description:
        "serve: per client address, <requests-per-second>[,<burst>] over every endpoint (token bucket; more get 429 rate-limited with Retry-After); default: no limit",
    },
    "trust-proxy": {
      type: "string",
      description:
        "serve: reverse proxies (addresses or CIDR ranges, comma-separated) whose X-Forwarded-For names the client for --rate-limit; default none (the socket's address counts)",
    },
    ...ATTACK_OPTION_SPECS,
    oracle: {
      type: "string",
      choices: ["adaptive", "grr", "oue", "sue"],
      description: "simulate: force one oracle for every view of the new round (default adaptive)",
    },
    url: { type: "string", description: "simulate/status/query/close: the collector's base URL" },
    round: {
      type: "string",
      description: "simulate (optional: else a new round)/status/query/close: round id",
    },
    attrs: { type: "string", description: "query: attribute names or indices, comma-separated" },
    interval: {
      type: "number",
      description:
        "query: also return a confidence interval per cell at this level, e.g. 0.95 (--campaign: per round): lower, upper, standardError, intervalMethod (analytic when a view covers the query, else bounds: conservative Fréchet bounds, standardError null)",
      min: 1e-6,
      max: 0.999999,
    },
    data: {
      type: "string",
      description:
        "simulate: dataset spec (synthetic:iid?p=.., synthetic:bn?.., adult:<dir>, csv:<file>, ...)",
      default: "synthetic:bn?strength=0.5&parents=2&seed=1",
    },
    n: { type: "integer", description: "simulate: users", default: 10_000, min: 1 },
    d: { type: "integer", description: "simulate: attributes of the data", default: 8, min: 1 },
    k: {
      type: "integer",
      description: "simulate: query size the new round is planned for",
      default: 3,
      min: 1,
    },
    eps: {
      type: "number",
      description: "simulate: privacy budget of the new round",
      default: 1,
      min: 1e-9,
      max: 20,
    },
    theta: {
      type: "number",
      description: "simulate: Algorithm 1's threshold for the new round",
      min: 1e-12,
      max: 1,
    },
    concurrency: {
      type: "integer",
      description: "simulate: batches in flight",
      default: 8,
      min: 1,
      max: 1024,
    },
    batch: { type: "integer", description: "simulate: reports per POST", default: 100, min: 1 },
    seed: { type: "integer", description: "simulate: seed of the data", default: 1, min: 0 },
    "perturb-seed": {
      type: "integer",
      description:
        "simulate: seed the perturbations and report ids (default: cryptographic, as real clients)",
      min: 0,
    },
    campaign: {
      type: "string",
      description:
        "simulate: drive this campaign's rounds with persistent reporters (createReporter); query: the marginal's time series across its rounds",
    },
    rounds: {
      type: "integer",
      description: "simulate --campaign: rounds to run (the admin API opens each next round)",
      default: 1,
      min: 1,
      max: 10_000,
    },
    "change-rate": {
      type: "number",
      description: "simulate --campaign: fraction of users who change their record between rounds",
      default: 0,
      min: 0,
      max: 1,
    },
    "max-eps": {
      type: "number",
      description: "simulate --campaign: each device's maxEps (default rounds x plan eps)",
      min: 0,
    },
    "round-every": {
      type: "string",
      description:
        "campaign: rounds roll over on this schedule (90s, 15m, 1h, 1d); default: the admin opens rounds",
    },
    "instant-eps": {
      type: "number",
      description: "campaign: eps of the clients' instantaneous layer (estimates are de-biased for it)",
      min: 1e-9,
      max: 20,
    },
    from: { type: "string", description: "query --campaign: first round (index or ISO time)" },
    to: { type: "string", description: "query --campaign: last round (index or ISO time)" },
    "retry-for": {
      type: "number",
      description:
        "simulate: seconds the plan fetch and each batch retry (same report ids) while the collector is unreachable or answers 5xx",
      default: 60,
      min: 0,
    },
  },
  async run(raw, context, positionals) {
    const subcommand = positionals[0] as Subcommand | undefined;
    if (subcommand === undefined || !SUBCOMMANDS.includes(subcommand))
      throw new UsageError(
        `collector: the first argument must be one of ${SUBCOMMANDS.join(", ")} (got ${JSON.stringify(subcommand)})`,
      );
    const options = raw as unknown as CollectorOptions;
    const defaults = collectorCommand.options;
    for (const [name, value] of Object.entries(raw)) {
      if (value !== undefined && value !== defaults[name]?.default && !ALLOWED[subcommand].includes(name))
        throw new UsageError(`collector ${subcommand}: --${name} does not apply to ${subcommand}`);
    }
    if (subcommand === "serve") return serve(options, collectorCommand.options, adminToken("serve"), context);
    if (subcommand === "migrate") return migrate(options, collectorCommand.options);
    if (subcommand === "issuer") return runIssuer(options, context);
    if (subcommand === "simulate") return simulate(options, context);
    if (subcommand === "status") return status(options);
    if (subcommand === "close") return close(options);
    if (subcommand === "campaign") {
      const url = required("campaign", "url", options.url);
      return createCampaign(campaignCall("campaign", options, url), await loadRecords(options), context);
    }
    return query(options);
  },
};
