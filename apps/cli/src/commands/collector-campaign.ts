import {
  createReporter,
  memoryStorage,
  type Reporter,
  readPlan,
  sendReports,
  type WireReport,
} from "@calm-ldp/client";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { type Rng, seededRng, uniformInt } from "@calm-ldp/random";
import { type CommandContext, UsageError } from "../cli-kit.js";

/** What the campaign subcommands read from the collector command's options. */
export interface CampaignOptions {
  url: string;
  campaign?: string;
  rounds: number;
  "change-rate": number;
  "round-every"?: string;
  "instant-eps"?: number;
  "max-eps"?: number;
  "perturb-seed"?: number;
  batch: number;
  concurrency: number;
  seed: number;
  eps: number;
  k: number;
  n: number;
  theta?: number;
  attrs?: string;
  from?: string;
  to?: string;
  interval?: number;
}

type AdminCall = (
  base: string,
  path: string,
  token: string,
  body?: unknown,
) => Promise<Record<string, unknown>>;

/** What a campaign subcommand works with: its options, the admin token and the admin request. */
export interface CampaignCall {
  options: CampaignOptions;
  token: string;
  adminCall: AdminCall;
}

/** `collector campaign`: create a campaign for the data's schema (its first round opens). */
export async function createCampaign(
  { options, token, adminCall }: CampaignCall,
  records: RecordStore,
  context: CommandContext,
): Promise<unknown> {
  const created = await adminCall(options.url, "/v1/campaigns", token, {
    schema: { attributes: records.schema.attributes.map((a) => ({ name: a.name, labels: [...a.labels] })) },
    eps: options.eps,
    k: options.k,
    n: options.n,
    ...(options.theta !== undefined ? { theta: options.theta } : {}),
    ...(options["round-every"] !== undefined ? { roundEvery: options["round-every"] } : {}),
    ...(options["instant-eps"] !== undefined ? { instantEps: options["instant-eps"] } : {}),
  });
  const plan = readPlan(created.plan);
  context.log(
    `collector campaign: created campaign ${String(created.campaign)} (l = ${plan.l}, m = ${plan.m}); round 0 is ${String(created.round)}`,
  );
  return {
    campaign: created.campaign,
    round: created.round,
    index: created.index,
    eps: plan.eps,
    l: plan.l,
    m: plan.m,
    roundEveryMs: created.roundEveryMs,
    instantEps: created.instantEps,
  };
}

/**
 * Deliveries of many devices gathered into batches of at most `size` reports per
 * round, at most `concurrency` POSTs in flight; each device's `send` resolves once
 * its reports are acknowledged (or rejects with the collector's error).
 */
function batcher(url: string, size: number, concurrency: number) {
  type Waiting = { round: string; reports: readonly WireReport[]; done: (error?: unknown) => void };
  let waiting: Waiting[] = [];
  let acknowledged = 0;
  const post = async () => {
    const batch = waiting;
    waiting = [];
    const parts: Waiting[][] = [];
    for (const round of new Set(batch.map((w) => w.round))) {
      let part: Waiting[] = [];
      let count = 0;
      for (const w of batch.filter((x) => x.round === round)) {
        if (count + w.reports.length > size && part.length > 0) {
          parts.push(part);
          part = [];
          count = 0;
        }
        part.push(w);
        count += w.reports.length;
      }
      if (part.length > 0) parts.push(part);
    }
    let next = 0;
    const worker = async () => {
      while (next < parts.length) {
        const part = parts[next++]!;
        const reports = part.flatMap((w) => [...w.reports]);
        try {
          await sendReports(url, part[0]!.round, reports);
          acknowledged += reports.length;
          for (const w of part) w.done();
        } catch (error) {
          for (const w of part) w.done(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, parts.length) }, worker));
  };
  return {
    send: (round: string, reports: readonly WireReport[]) =>
      new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) setTimeout(post, 0);
        waiting.push({ round, reports, done: (error) => (error ? reject(error) : resolve()) });
      }),
    acknowledged: () => acknowledged,
  };
}

function recordOf(records: RecordStore, row: number): number[] {
  return records.columns.map((column) => column[row]!);
}

/**
 * `collector simulate --campaign <id> --rounds T --change-rate r`: n devices, each
 * a real `createReporter` (memory storage, the campaign's plan and instantEps),
 * report in T rounds. Before every round but the first the admin API opens the
 * next round (closing the open one), and a fraction r of the users (each with
 * probability r, seeded) change their record to another user's record of the
 * data. Each device asks nothing but reports to the open round that
 * `GET /v1/campaigns/:id/current` names. Prints per round the reports
 * acknowledged and refused and the users who changed, and the devices' ledgers.
 */
export async function simulateCampaign(
  { options, token, adminCall }: CampaignCall,
  records: RecordStore,
  context: CommandContext,
): Promise<unknown> {
  const campaign = options.campaign!;
  const rate = options["change-rate"];
  if (!(rate >= 0 && rate <= 1))
    throw new UsageError(`collector simulate: --change-rate must be in [0, 1] (got ${rate})`);
  const described = await adminCall(options.url, `/v1/campaigns/${encodeURIComponent(campaign)}`, token);
  const plan = readPlan(described.plan);
  const ours = records.schema.attributes.map((a) => a.labels.length).join(",");
  const theirs = plan.schema.attributes.map((a) => a.labels.length).join(",");
  if (ours !== theirs)
    throw new UsageError(
      `collector simulate: the data's cardinalities (${ours}) do not match campaign ${campaign}'s schema (${theirs})`,
    );
  const instantEps = (described.instantEps as number | null) ?? undefined;
  const n = records.size;
  const changes: Rng = seededRng(options.seed, 11);
  const delivery = batcher(options.url, options.batch, options.concurrency);
  const maxEps = options["max-eps"] ?? options.rounds * plan.eps;
  const reporters: Reporter[] = [];
  for (let u = 0; u < n; u++)
    reporters.push(
      await createReporter({
        plan,
        storage: memoryStorage(),
        maxEps,
        campaign,
        send: delivery.send,
        ...(instantEps !== undefined ? { instantEps } : {}),
        ...(options["perturb-seed"] !== undefined ? { rng: seededRng(options["perturb-seed"], u) } : {}),
      }),
    );
  const current = Array.from({ length: n }, (_, u) => recordOf(records, u));
  const started = Date.now();
  const rounds = [];
  for (let t = 0; t < options.rounds; t++) {
    let changed = 0;
    if (t > 0) {
      await adminCall(options.url, `/v1/campaigns/${encodeURIComponent(campaign)}/rounds`, token, {});
      for (let u = 0; u < n; u++)
        if (changes.nextUint32() < rate * 2 ** 32) {
          current[u] = recordOf(records, uniformInt(changes, n));
          changed++;
        }
    }
    const open = await adminCall(options.url, `/v1/campaigns/${encodeURIComponent(campaign)}/current`, token);
    const round = open.round as string;
    const before = delivery.acknowledged();
    const results = await Promise.all(reporters.map((r, u) => r.report(current[u]!, { round })));
    const refused = results.reduce((s, r) => s + r.flush.refused.length, 0);
    const pending = results.reduce((s, r) => s + (r.flush.pending > 0 ? 1 : 0), 0);
    rounds.push({
      round,
      index: open.index,
      acknowledged: delivery.acknowledged() - before,
      refused,
      pending,
      changed,
    });
    context.log(
      `collector simulate: round ${String(open.index)} (${round}): ${delivery.acknowledged() - before} acknowledged, ${changed} users changed`,
    );
  }
  const spent = reporters.map((r) => r.ledger().eps);
  return {
    campaign,
    users: n,
    rounds,
    changeRate: rate,
    acknowledged: delivery.acknowledged(),
    seconds: (Date.now() - started) / 1000,
    ledger: {
      planEps: plan.eps,
      meanEps: spent.reduce((a, b) => a + b, 0) / n,
      maxEps: Math.max(...spent),
      naiveEps: options.rounds * plan.eps,
    },
    instantEps: instantEps ?? null,
  };
}

/** `collector query --campaign <id> --attrs a,b [--from --to]`: the marginal in every round. */
export async function queryCampaign({ options, token, adminCall }: CampaignCall): Promise<unknown> {
  const params = new URLSearchParams({ attrs: options.attrs! });
  if (options.from !== undefined) params.set("from", options.from);
  if (options.to !== undefined) params.set("to", options.to);
  if (options.interval !== undefined) params.set("interval", String(options.interval));
  const answer = await adminCall(
    options.url,
    `/v1/campaigns/${encodeURIComponent(options.campaign!)}/marginals?${params}`,
    token,
  );
  return {
    campaign: answer.campaign,
    attrs: answer.attrs,
    cardinalities: answer.cardinalities,
    eps: answer.eps,
    instantEps: answer.instantEps,
    series: answer.series,
  };
}
