import type { CalmPlan } from "@calm-ldp/calm-core";
import { readPlan } from "@calm-ldp/client";
import { fetchRoundPlan, simulateUsers } from "@calm-ldp/collector";
import { generateFromSpec, parseDataSpec, sampleUsers } from "@calm-ldp/datasets";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { type CommandContext, UsageError } from "../cli-kit.js";
import { loadPopulation } from "../harness/load.js";
import { adminCall, adminToken, campaignCall, required } from "./collector-admin.js";
import { attackRound, checkAttackOptions, honestReporter } from "./collector-attack.js";
import { simulateCampaign } from "./collector-campaign.js";
import type { CollectorOptions } from "./collector-options.js";

/** The simulated users' records: n rows of the --data spec. */
export async function loadRecords(options: CollectorOptions): Promise<RecordStore> {
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

/**
 * The round `collector simulate` reports to: a new round planned for the data's
 * schema (admin call), or the plan of `--round` (retried like the batches while the
 * collector is down or answers 5xx), whose cardinalities must match the data's.
 */
async function simulatedRound(
  url: string,
  options: CollectorOptions,
  records: RecordStore,
  context: CommandContext,
): Promise<{ round: string; plan: CalmPlan }> {
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
  return { round, plan };
}

/**
 * `collector simulate`: n users of the --data spec report over HTTP to a new or
 * given round (or, with --campaign, a campaign's rounds with persistent
 * reporters), optionally with an attack; the document counts what was
 * acknowledged, refused and retried.
 */
export async function simulate(options: CollectorOptions, context: CommandContext): Promise<unknown> {
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
  const { round, plan } = await simulatedRound(url, options, records, context);
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
