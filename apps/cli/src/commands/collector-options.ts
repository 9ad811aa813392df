import type { OptionSpec } from "../cli-kit.js";
import { ATTACK_OPTION_SPECS, type AttackOptions } from "./collector-attack.js";
import type { CampaignOptions } from "./collector-campaign.js";
import { ISSUER_OPTION_SPECS, ISSUER_OPTIONS, type IssuerCliOptions } from "./collector-issuer.js";
import { SERVE_OPTION_SPECS, SERVE_OPTIONS, type ServeOptions } from "./collector-serve.js";

/** The collector command's subcommands (its first positional argument). */
export const SUBCOMMANDS = [
  "serve",
  "simulate",
  "status",
  "query",
  "close",
  "campaign",
  "migrate",
  "issuer",
] as const;
export type Subcommand = (typeof SUBCOMMANDS)[number];

/** The collector command's options: the campaign subcommands' (`CampaignOptions`) and the rest. */
export interface CollectorOptions
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
export const ALLOWED: Record<Subcommand, readonly string[]> = {
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

/** Every option of the collector command (each subcommand reads those `ALLOWED` names). */
export const COLLECTOR_OPTION_SPECS: Record<string, OptionSpec> = {
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
    description: "simulate: dataset spec (synthetic:iid?p=.., synthetic:bn?.., adult:<dir>, csv:<file>, ...)",
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
    description: "simulate: seed the perturbations and report ids (default: cryptographic, as real clients)",
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
};
