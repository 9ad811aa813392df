import { randomUUID } from "node:crypto";
import type { CalmPlan } from "@calm-ldp/calm-core";
import {
  ATTACKS,
  type AttackName,
  type AttackResult,
  addressAttester,
  parseTarget,
  protectedKey,
  runAttack,
  type TokenProtection,
  testAttester,
  tokenUsers,
} from "@calm-ldp/collector";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { cryptoRng, type Rng } from "@calm-ldp/random";
import { UsageError } from "../cli-kit.js";

/** The options of `collector simulate` and `serve` this file reads. */
export interface AttackOptions {
  attack?: string;
  fraction: number;
  target?: string;
  "require-tokens"?: boolean;
  attester: string;
  "token-key-dir"?: string;
}

/** The CLI options of the attack suite and protected mode (merged into the collector command's). */
export const ATTACK_OPTION_SPECS = {
  attack: {
    type: "string",
    choices: ATTACKS,
    description:
      "simulate: after the honest users, add fake clients running this attack and print attack {name, fraction, target, gain, floor, ratio, acceptedFake, refusedFake, flagged} (docs/threat-model.md)",
  },
  fraction: {
    type: "number",
    description: "simulate --attack: beta, the fake clients' share of all clients",
    default: 0.01,
    min: 0,
    max: 0.99,
  },
  target: {
    type: "string",
    description:
      "simulate --attack: the cell the attacker raises, <attrs>=<values> (names or indices), e.g. 0,1=1,1",
  },
  "require-tokens": {
    type: "boolean",
    description:
      "serve: protected mode: every report spends one Privacy Pass token (issued per round by this collector after --attester vouches), which fixes its view and id",
  },
  attester: {
    type: "string",
    choices: ["test", "address"],
    default: "address",
    description:
      "serve --require-tokens: who gets tokens: address (1 per round per client address, the weak default) or test (any attestation id gets 1 per round: tests and simulations only)",
  },
  "token-key-dir": {
    type: "string",
    description:
      "serve --require-tokens: directory of the per-round issuer keys (PKCS #8 PEM, 0600), shared by collector processes; default: in memory",
  },
} as const;

/** `serve --require-tokens`: the `tokens` option of startCollector, or none. */
export function tokenProtection(
  options: Pick<AttackOptions, "require-tokens" | "attester" | "token-key-dir">,
): TokenProtection | undefined {
  if (!options["require-tokens"]) {
    if (options["token-key-dir"] !== undefined)
      throw new UsageError("collector serve: --token-key-dir needs --require-tokens");
    return undefined;
  }
  const attester = options.attester === "test" ? testAttester() : addressAttester();
  return {
    attester,
    ...(options["token-key-dir"] !== undefined ? { keyDir: options["token-key-dir"] } : {}),
  };
}

/** f_T: the share of `records` whose target attributes hold the target values. O(n). */
function targetFrequency(
  records: RecordStore,
  target: { attributes: readonly number[]; values: readonly number[] },
) {
  let hits = 0;
  for (let r = 0; r < records.size; r++)
    if (target.attributes.every((a, i) => records.columns[a]![r] === target.values[i])) hits++;
  return records.size === 0 ? 0 : hits / records.size;
}

/**
 * The honest users' `reportFor` for `simulateUsers`: token-spending users when the
 * round is protected (the collector answers its token-key route), else none (plain reports).
 */
export async function honestReporter(url: string, round: string, plan: CalmPlan, rng: Rng | undefined) {
  const key = await protectedKey(url, round);
  if (!key) return { key: undefined, reportFor: undefined };
  return { key, reportFor: tokenUsers(url, plan, key, rng ?? cryptoRng(), `honest-${randomUUID()}`) };
}

/** All k-subsets of [0, d) in lexicographic order. O(C(d, k) k). */
function subsets(d: number, k: number): number[][] {
  if (k === 0) return [[]];
  const out: number[][] = [];
  for (let first = 0; first <= d - k; first++)
    for (const rest of subsets(d - first - 1, k - 1)) out.push([first, ...rest.map((a) => a + first + 1)]);
  return out;
}

/**
 * The SSE of the released k-way marginals (every k-subset of the attributes,
 * `GET /marginals?attrs=`) against the honest records' true marginals:
 * sum over marginals and cells of (released - true)^2. O(C(d, k) (n k + cells)) plus one query per marginal.
 */
export async function releasedSse(
  call: { url: string; round: string; plan: CalmPlan; adminToken: string; records: RecordStore },
  k: number,
): Promise<{ k: number; marginals: number; sse: number }> {
  const { url, round, plan, adminToken, records } = call;
  const cards = plan.schema.attributes.map((a) => a.labels.length);
  const sets = subsets(cards.length, k);
  let sse = 0;
  for (const attrs of sets) {
    const response = await fetch(
      `${url.replace(/\/+$/, "")}/v1/rounds/${round}/marginals?attrs=${attrs.join(",")}`,
      {
        headers: { authorization: `Bearer ${adminToken}` },
      },
    );
    const body = (await response.json()) as { cells?: number[]; message?: string };
    if (!response.ok || !body.cells)
      throw new Error(`marginal ${attrs.join(",")}: HTTP ${response.status} ${body.message}`);
    const truth = new Float64Array(body.cells.length);
    for (let r = 0; r < records.size; r++) {
      let cell = 0;
      for (const a of attrs) cell = cell * cards[a]! + records.columns[a]![r]!;
      truth[cell]! += 1 / records.size;
    }
    body.cells.forEach((released, cell) => {
      sse += (released - truth[cell]!) ** 2;
    });
  }
  return { k, marginals: sets.length, sse };
}

/** `--attack` and `--target` go together (checked before anything is sent). */
export function checkAttackOptions(options: AttackOptions): void {
  if (options.attack === undefined && options.target !== undefined)
    throw new UsageError("collector simulate: --target needs --attack");
  if (options.attack !== undefined && options.target === undefined)
    throw new UsageError("collector simulate: --attack needs --target <attrs>=<values>");
}

/** Run `--attack` against the round after its honest users: the `attack` object of the JSON output. */
export async function attackRound(
  options: AttackOptions,
  call: { url: string; round: string; plan: CalmPlan; adminToken: string; records: RecordStore },
  key: Awaited<ReturnType<typeof protectedKey>>,
  rng: Rng | undefined,
): Promise<(AttackResult & { releasedSse: Awaited<ReturnType<typeof releasedSse>> }) | undefined> {
  if (options.attack === undefined) {
    if (options.target !== undefined) throw new UsageError("collector simulate: --target needs --attack");
    return undefined;
  }
  if (options.target === undefined)
    throw new UsageError("collector simulate: --attack needs --target <attrs>=<values>");
  let target: ReturnType<typeof parseTarget>;
  try {
    target = parseTarget(call.plan, options.target);
  } catch (error) {
    throw new UsageError(`collector simulate: ${(error as Error).message}`);
  }
  const result = await runAttack({
    ...call,
    attack: options.attack as AttackName,
    fraction: options.fraction,
    target,
    honest: call.records.size,
    trueFrequency: targetFrequency(call.records, target),
    ...(key ? { key } : {}),
    rng: rng ?? cryptoRng(),
    prefix: `fake-${randomUUID()}`,
  });
  // The release's error after the attack (with --attack none: the honest release's SSE).
  return { ...result, releasedSse: await releasedSse(call, Math.min(2, call.plan.schema.attributes.length)) };
}
