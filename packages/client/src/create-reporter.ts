import { type CalmPlan, InvalidParameterError } from "@calm-ldp/calm-core";
import { cryptoRng, type Rng } from "@calm-ldp/random";
import type {
  FlushResult,
  PendingReport,
  Reporter,
  ReporterLedger,
  ReporterOptions,
  ReporterStart,
  WireReport,
} from "./api.js";
import { encodeReport } from "./encode-report.js";
import { CollectorResponseError, ReporterError } from "./errors.js";
import { checkRecord } from "./perturb-record.js";
import { createReportId, createTimeOrderedReportId } from "./report-id.js";
import { memoizedReport, type ReporterCore, reporterCore, reporterView } from "./reporter-core.js";
import {
  DEFAULT_KEEP_ROUND_IDS,
  decodeState,
  encodeState,
  planFingerprint,
  pruneRounds,
  type ReporterState,
} from "./reporter-state.js";

/** Slack on the budget comparison (eps sums of equal terms are exact up to rounding). */
const BUDGET_SLACK = 1e-9;

function fail(problem: ReporterError["problem"], detail: string): never {
  throw new ReporterError(`createReporter: ${detail}`, problem);
}

/** The maker of `reportIds` (see `ReporterOptions.reportIds`; default random version-4 ids). */
function reportIdMaker(reportIds: ReporterOptions["reportIds"] = "random"): (rng: Rng) => string {
  if (reportIds === "random") return createReportId;
  if (reportIds === "time-ordered") return (rng) => createTimeOrderedReportId(rng);
  if (typeof reportIds === "function") return reportIds;
  return fail(
    "options",
    `reportIds must be "random", "time-ordered" or a function (got ${JSON.stringify(reportIds)})`,
  );
}

/** The checked options of a reporter and what they derive (its core, ids, storage key). */
interface Settings {
  readonly options: ReporterOptions;
  readonly plan: CalmPlan;
  readonly storage: ReporterOptions["storage"];
  readonly maxEps: number;
  readonly send: ReporterOptions["send"];
  readonly keepRoundIds: number;
  readonly newId: (rng: Rng) => string;
  readonly campaign: string;
  readonly rng: Rng;
  readonly core: ReporterCore;
  /** The storage key of the campaign's state. */
  readonly key: string;
}

/** A running reporter: its settings, how it started, and its state (replaced only after it is written). */
interface Session {
  readonly settings: Settings;
  readonly start: ReporterStart;
  state: ReporterState;
}

/**
 * Checks `options` in a fixed order (plan, storage, maxEps, keepRoundIds,
 * reportIds, instantEps via the core, view, assignment), throwing `ReporterError`
 * ("options") or `InvalidParameterError` naming the first wrong one. O(views).
 */
function checkOptions(options: ReporterOptions): Settings {
  const { plan, storage, maxEps, instantEps, send } = options ?? ({} as ReporterOptions);
  if (!plan || !Array.isArray(plan.views)) fail("options", "options.plan must be a CALM plan");
  if (!storage || typeof storage.read !== "function" || typeof storage.write !== "function")
    fail("options", "options.storage must have read and write");
  if (!(typeof maxEps === "number" && maxEps >= 0))
    fail("options", `maxEps must be a number >= 0 (got ${maxEps})`);
  const keepRoundIds = options.keepRoundIds ?? DEFAULT_KEEP_ROUND_IDS;
  if (!(Number.isSafeInteger(keepRoundIds) && keepRoundIds >= 1))
    fail("options", `keepRoundIds must be an integer >= 1 (got ${keepRoundIds})`);
  const newId = reportIdMaker(options.reportIds);
  const campaign = options.campaign ?? "default";
  const rng = options.rng ?? cryptoRng();
  const core = reporterCore(plan, instantEps);
  if (
    options.view !== undefined &&
    !(Number.isInteger(options.view) && options.view >= 0 && options.view < plan.views.length)
  )
    fail("options", `view must be an integer in [0, ${plan.views.length}) (got ${options.view})`);
  if (plan.assignment === "assigned" && options.view === undefined)
    throw new InvalidParameterError("createReporter: this plan assigns groups on the server; pass view");
  const key = `calm-ldp-reporter:${campaign}`;
  return { options, plan, storage, maxEps, send, keepRoundIds, newId, campaign, rng, core, key };
}

/**
 * Reads the campaign's stored state once: none -> a fresh state ("new"); a corrupt
 * or foreign one -> fresh, `start` saying which (see `decodeState`). Throws
 * `ReporterError` ("storage") when the storage cannot be read, resetting nothing.
 * One read, O(state size).
 */
async function loadState(settings: Settings): Promise<Session> {
  const { storage, key, campaign, plan, keepRoundIds } = settings;
  let text: string | undefined;
  try {
    text = await storage.read(key);
  } catch (error) {
    fail("storage", `cannot read the state (${String(error)}); nothing was reset`);
  }
  let start: ReporterStart = "new";
  let state: ReporterState = {
    campaign,
    plan: planFingerprint(plan),
    view: null,
    memo: {},
    rounds: [],
    reported: 0,
    queue: [],
  };
  if (text !== undefined) {
    const decoded = decodeState(text, campaign, plan, keepRoundIds);
    start = decoded.start;
    if (decoded.state) state = decoded.state;
  }
  return { settings, start, state };
}

/** Writes `next` as the campaign's state; `ReporterError` ("storage") when the write fails. One write. */
async function persist({ storage, key }: Settings, next: ReporterState): Promise<void> {
  try {
    await storage.write(key, encodeState(next));
  } catch (error) {
    fail("storage", `cannot write the state (${String(error)})`);
  }
}

/** A queue running tasks one at a time in call order (a task runs after the previous settles). O(1) per task. */
function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let chain: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };
}

/**
 * Sends the queued reports with `send`, one batch per round (same ids as before):
 * an acknowledged batch or one refused by the collector (4xx: reported in
 * `refused`, never retried) leaves the queue and the state is written (a failed
 * write only means a restart re-sends ids the collector counts once); any other
 * failure keeps the batch queued. Without `send` nothing is sent. One send and one
 * state write per round queued.
 */
async function flushQueue(session: Session): Promise<FlushResult> {
  const { send, keepRoundIds } = session.settings;
  const refused: FlushResult["refused"][number][] = [];
  let sent = 0;
  if (send) {
    const rounds = [...new Set(session.state.queue.map((p) => p.round))];
    for (const round of rounds) {
      const batch = session.state.queue.filter((p) => p.round === round);
      let done = false;
      try {
        await send(
          round,
          batch.map((p) => p.report),
        );
        sent += batch.length;
        done = true;
      } catch (error) {
        if (error instanceof CollectorResponseError && error.status >= 400 && error.status < 500) {
          for (const p of batch) refused.push({ ...p, reason: error.reason, status: error.status });
          done = true;
        }
      }
      if (done) {
        const state = session.state;
        const queue = state.queue.filter((p) => p.round !== round);
        session.state = { ...state, queue, rounds: pruneRounds(state.rounds, queue, keepRoundIds) };
        // A failed write here only means a restart re-sends these ids, which the collector counts once.
        await persist(session.settings, session.state).catch(() => undefined);
      }
    }
  }
  return { sent, pending: session.state.queue.length, refused };
}

/**
 * One report of `record` for `round`: checks the round (non-empty, not reported
 * yet: `ReporterError` "round") and the record, takes the user's view (drawn once),
 * the memoized response of its cell (a new cell spends plan eps, refused with
 * `ReporterError` "budget" past `maxEps`), encodes it with a new id, writes the
 * state with it queued (a failed write throws before anything is sent and leaves
 * the state in memory unchanged), then flushes. O(d + cells of the view) plus one
 * state write and a flush.
 */
async function reportOnce(
  session: Session,
  record: ArrayLike<number>,
  reportOptions: { round: string } | undefined,
): Promise<{ report: WireReport; flush: FlushResult }> {
  const round = reportOptions?.round;
  const { plan, maxEps, core, options, rng, newId, keepRoundIds } = session.settings;
  if (typeof round !== "string" || round.length === 0)
    fail("options", `report: round must be a non-empty string (got ${JSON.stringify(round)})`);
  checkRecord(plan, record, "createReporter.report");
  const state = session.state;
  if (state.rounds.includes(round)) fail("round", `round ${round} was already reported; nothing was sent`);
  const view = reporterView(core, state.view, options.view, rng);
  const memo = { ...state.memo };
  const { payload } = memoizedReport(core, view, record, memo, rng, (memoized) => {
    const spent = memoized * plan.eps;
    if (spent + plan.eps > maxEps + BUDGET_SLACK)
      fail(
        "budget",
        `a new value needs eps ${plan.eps} more, ${spent} of maxEps ${maxEps} is spent; nothing was sent`,
      );
  });
  const report: WireReport = encodeReport(plan, { view, report: payload }, newId(rng));
  const queue = [...state.queue, { round, report }];
  const next: ReporterState = {
    ...state,
    view,
    memo,
    rounds: pruneRounds([...state.rounds, round], queue, keepRoundIds),
    reported: state.reported + 1,
    queue,
  };
  await persist(session.settings, next); // throws before anything is sent; the state in memory is unchanged
  session.state = next;
  return { report, flush: await flushQueue(session) };
}

/**
 * The eps of one report as sent: the plan's eps without an instantaneous layer;
 * with one, the worst composed log-ratio over the views (GRR: ln(P/Q); unary:
 * ln(P(1-Q) / (Q(1-P))), P and Q the composed keep/flip probabilities). O(views).
 */
function reportEps({ plan, core }: Settings): number {
  const layers = core.layers;
  if (!layers) return plan.eps;
  return Math.max(
    ...plan.views.map((v, i) => {
      const { p, q } = layers[i]!;
      return v.oracle === "grr" ? Math.log(p / q) : Math.log((p * (1 - q)) / (q * (1 - p)));
    }),
  );
}

/** The reporter's ledger: eps spent (plan eps per memoized value), view, rounds reported, how it started. O(memoized). */
function ledgerOf({ settings, state, start }: Session): ReporterLedger {
  const { plan, campaign, maxEps } = settings;
  return {
    campaign,
    eps: Object.keys(state.memo).length * plan.eps,
    maxEps,
    planEps: plan.eps,
    memoized: Object.keys(state.memo).length,
    view: state.view ?? undefined,
    rounds: state.reported,
    reportEps: reportEps(settings),
    start,
  };
}

/**
 * A persistent reporter for a campaign (repeated collection under one plan),
 * after RAPPOR's memoization (Erlingsson et al. 2014) and Ding et al. (NeurIPS
 * 2017):
 * - the user's group is drawn once (uniformly, or `options.view` when assigned) and kept;
 * - the permanent response of each (view, true cell) is drawn once by the view's
 *   oracle at the plan's eps and memoized: an unchanged record re-sends it and
 *   spends nothing more, so the joint law of all her reports depends on her
 *   record only through the memoized responses;
 * - with `instantEps`, every report is a fresh randomization of the memoized
 *   response (`instantaneousLayer` of @calm-ldp/frequency-oracles; the collector
 *   de-biases with `estimateCalm(..., { instantEps })`);
 * - the ledger charges plan eps per distinct (view, cell) memoized (the
 *   instantaneous layer is post-processing and costs nothing); a report that
 *   would pass `maxEps` throws `ReporterError` ("budget") and sends nothing;
 * - the state (versioned, checksummed, see reporter-state.ts) is written before
 *   anything is sent, and reports stay queued until acknowledged, retried with
 *   the same ids (the collector counts an id once);
 * - a second report in a round is refused (`ReporterError` "round"): the state keeps
 *   the ids of the latest `keepRoundIds` rounds reported (default 32) and of every
 *   round with a queued report, so it stays O(keepRoundIds) however many rounds pass;
 *   an id older than that is no longer recognised (its round is long closed: the
 *   collector refuses it, 409 round-closed).
 * Reads the stored state once (a corrupt or foreign state is replaced by a fresh
 * one, `ledger().start` says which); throws `ReporterError` ("storage") when the
 * storage cannot be read. Cost per report: O(d + cells of the view) plus one
 * state write of O(memoized values x view words + queue).
 * Steps: `checkOptions`, `loadState`, then per call `reportOnce` / `flushQueue`
 * (one at a time, in call order) and `ledgerOf`.
 */
export async function createReporter(options: ReporterOptions): Promise<Reporter> {
  const session = await loadState(checkOptions(options));
  const serial = serialQueue();
  return {
    report: (record, reportOptions) => serial(() => reportOnce(session, record, reportOptions)),
    flush: () => serial(() => flushQueue(session)),
    ledger: () => ledgerOf(session),
    pending: (): readonly PendingReport[] => session.state.queue.slice(),
  };
}
