import type { CalmPlan } from "@calm-ldp/calm-core";
import { CollectorResponseError, sendReports, type WireReport } from "@calm-ldp/client";
import { obtainTokens, reportIdOfToken, type TokenKey, viewOfToken } from "@calm-ldp/client/tokens";
import { type Rng, uniformInt } from "@calm-ldp/random";
import { InvalidParameterError } from "../errors.js";
import { type AttackName, type AttackTarget, craftReport, targetView } from "./craft.js";
import { limiter } from "./token-users.js";

/** Options of {@link runAttack}. */
export interface RunAttackOptions {
  readonly url: string;
  readonly round: string;
  readonly plan: CalmPlan;
  readonly adminToken: string;
  readonly attack: AttackName;
  /** beta: fake clients as a fraction of all clients (honest + fake), in [0, 1). */
  readonly fraction: number;
  readonly target: AttackTarget;
  /** Honest users already reported (the fake count is round(beta n / (1 - beta))). */
  readonly honest: number;
  /** f_T: the target cell's true frequency among the honest users. */
  readonly trueFrequency: number;
  /** The round's token key when it is protected (fake clients must then get tokens too). */
  readonly key?: TokenKey;
  readonly rng: Rng;
  /** Distinct prefix of the fake devices' ids (test attester identities). */
  readonly prefix: string;
  /** Reports each Sybil device tries (default 10), and tokens a grinding device asks for (default 8). */
  readonly sybilReports?: number;
}

/** The `attack` object `collector simulate --attack` prints. */
export interface AttackResult {
  readonly name: AttackName;
  readonly fraction: number;
  readonly target: string;
  /** Released target cell with the fake clients minus without them (same honest reports). */
  readonly gain: number;
  /** beta (e^eps / (e^eps - 1) - f_T): the shift every eps-LDP protocol allows (Cheu, Smith, Ullman 2021). */
  readonly floor: number;
  readonly ratio: number;
  readonly fakeClients: number;
  /** Fake reports counted by the collector. */
  readonly acceptedFake: number;
  /** Fake reports refused (4xx) or not counted (a re-spent token: duplicate id). */
  readonly refusedFake: number;
  /** Token requests of fake clients refused (quota). */
  readonly refusedTokens: number;
  readonly before: number;
  readonly after: number;
  /** The round's statistical flags after the attack (round status `flags`), if any. */
  readonly flagged: readonly unknown[];
}

async function admin(url: string, path: string, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${url.replace(/\/+$/, "")}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok)
    throw new Error(`GET ${path}: HTTP ${response.status} ${String(body.reason)}: ${String(body.message)}`);
  return body;
}

/** The released value of the target cell (`GET /marginals?attrs=` of the target's attributes). */
export async function releasedCell(
  options: Pick<RunAttackOptions, "url" | "round" | "plan" | "adminToken" | "target">,
): Promise<number> {
  const { url, round, plan, adminToken, target } = options;
  const answer = await admin(
    url,
    `/v1/rounds/${round}/marginals?attrs=${target.attributes.join(",")}`,
    adminToken,
  );
  let cell = 0;
  target.attributes.forEach((a, i) => {
    cell = cell * plan.schema.attributes[a]!.labels.length + target.values[i]!;
  });
  return (answer.cells as number[])[cell]!;
}

/** The per-fake outcome counters. */
interface Tally {
  accepted: number;
  refused: number;
  refusedTokens: number;
}

async function send(url: string, round: string, reports: WireReport[], tally: Tally): Promise<void> {
  try {
    const ack = await sendReports(url, round, reports);
    tally.accepted += ack.stored;
    tally.refused += ack.duplicates;
  } catch (error) {
    if (!(error instanceof CollectorResponseError) || error.status >= 500) throw error;
    tally.refused += reports.length;
  }
}

/**
 * One fake device of a protected round: it asks for more tokens than its quota
 * (grinding, Sybil: refused, then it takes its one), and then, per attack:
 * `mga-grind-view` claims the target's view with its token (refused unless the
 * token happens to fix that view) and falls back to MGA in the token's view;
 * `sybil` spends its token on `sybilReports` crafted reports (one counted, the rest
 * duplicates); the others craft one report in the token's view.
 */
async function protectedFake(
  options: RunAttackOptions,
  key: TokenKey,
  i: number,
  tally: Tally,
): Promise<void> {
  const { url, round, plan, attack, target, rng } = options;
  const extra = options.sybilReports ?? 10;
  const attestation = `${options.prefix}-${i}`;
  const want = attack === "sybil" ? extra : attack === "mga-grind-view" ? 8 : 1;
  let tokens: string[];
  try {
    tokens = await obtainTokens(url, key, want, { attestation });
  } catch (error) {
    if (!(error instanceof CollectorResponseError) || want === 1) throw error;
    tally.refusedTokens += want;
    tokens = await obtainTokens(url, key, 1, { attestation });
  }
  for (const token of tokens) {
    const bytes = new Uint8Array(Buffer.from(token, "base64"));
    const tokenView = await viewOfToken(bytes, plan.m);
    const id = await reportIdOfToken(bytes);
    const make = (view: number) => ({ ...craftReport(attack, plan, target, view, rng, id), token });
    if (attack === "mga-grind-view") {
      const wanted = targetView(plan, target);
      if (tokenView !== wanted) await send(url, round, [make(wanted)], tally);
      await send(url, round, [make(tokenView)], tally);
    } else if (attack === "sybil") {
      for (let r = 0; r < extra; r++) await send(url, round, [make(tokenView)], tally);
    } else {
      await send(url, round, [make(tokenView)], tally);
    }
  }
}

/**
 * Add `round(beta n / (1 - beta))` fake clients to a round that already holds its
 * honest users' reports, and measure what they did to the released target cell:
 * the cell is read before and after (`releasedCell`), so the honest reports are
 * exactly the same in both. Unprotected, a fake client picks its view: uniformly as
 * honest clients do (random-value, random-item, mga) or the target's (mga-grind-view,
 * and sybil, which also sends `sybilReports` reports per device); protected, it has
 * to obtain tokens like everyone (see `protectedFake`). O(fakes) HTTP requests.
 */
export async function runAttack(options: RunAttackOptions): Promise<AttackResult> {
  const { url, round, plan, attack, fraction, target, rng } = options;
  if (!(fraction >= 0 && fraction < 1))
    throw new InvalidParameterError(`--fraction must be in [0, 1) (got ${fraction})`);
  const fakes = attack === "none" ? 0 : Math.round((fraction * options.honest) / (1 - fraction));
  const before = await releasedCell(options);
  const tally: Tally = { accepted: 0, refused: 0, refusedTokens: 0 };
  if (options.key) {
    const key = options.key;
    const limit = limiter(16);
    await Promise.all(
      Array.from({ length: fakes }, (_, i) => limit(() => protectedFake(options, key, i, tally))),
    );
  } else {
    const reports: WireReport[] = [];
    const grind = attack === "mga-grind-view" || attack === "sybil";
    const each = attack === "sybil" ? (options.sybilReports ?? 10) : 1;
    for (let i = 0; i < fakes; i++)
      for (let r = 0; r < each; r++)
        reports.push(
          craftReport(attack, plan, target, grind ? targetView(plan, target) : uniformInt(rng, plan.m), rng),
        );
    const limit = limiter(8);
    const batches = [];
    for (let at = 0; at < reports.length; at += 100) batches.push(reports.slice(at, at + 100));
    await Promise.all(batches.map((batch) => limit(() => send(url, round, batch, tally))));
  }
  const after = await releasedCell(options);
  const status = await admin(url, `/v1/rounds/${round}/status`, options.adminToken);
  const e = Math.exp(plan.eps);
  const floor = fraction * (e / (e - 1) - options.trueFrequency);
  const gain = after - before;
  return {
    name: attack,
    fraction,
    target: `${target.attributes.join(",")}=${target.values.join(",")}`,
    gain,
    floor,
    ratio: floor > 0 ? gain / floor : 0,
    fakeClients: fakes,
    acceptedFake: tally.accepted,
    refusedFake: tally.refused,
    refusedTokens: tally.refusedTokens,
    before,
    after,
    flagged: (status.flags as unknown[] | undefined) ?? [],
  };
}
