import { InvalidParameterError } from "@calm-ldp/calm-core";
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
import { memoizedReport, reporterCore, reporterView } from "./reporter-core.js";
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
 */
export async function createReporter(options: ReporterOptions): Promise<Reporter> {
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
  const layers = core.layers;
  if (
    options.view !== undefined &&
    !(Number.isInteger(options.view) && options.view >= 0 && options.view < plan.views.length)
  )
    fail("options", `view must be an integer in [0, ${plan.views.length}) (got ${options.view})`);
  if (plan.assignment === "assigned" && options.view === undefined)
    throw new InvalidParameterError("createReporter: this plan assigns groups on the server; pass view");
  const key = `calm-ldp-reporter:${campaign}`;

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

  const persist = async (next: ReporterState): Promise<void> => {
    try {
      await storage.write(key, encodeState(next));
    } catch (error) {
      fail("storage", `cannot write the state (${String(error)})`);
    }
  };
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = chain.then(task, task);
    chain = run.catch(() => undefined);
    return run;
  };

  const flushNow = async (): Promise<FlushResult> => {
    const refused: FlushResult["refused"][number][] = [];
    let sent = 0;
    if (send) {
      const rounds = [...new Set(state.queue.map((p) => p.round))];
      for (const round of rounds) {
        const batch = state.queue.filter((p) => p.round === round);
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
          const queue = state.queue.filter((p) => p.round !== round);
          state = { ...state, queue, rounds: pruneRounds(state.rounds, queue, keepRoundIds) };
          // A failed write here only means a restart re-sends these ids, which the collector counts once.
          await persist(state).catch(() => undefined);
        }
      }
    }
    return { sent, pending: state.queue.length, refused };
  };

  const reportEps = (): number => {
    if (!layers) return plan.eps;
    // Worst composed log-ratio over the views (GRR: ln(P/Q); unary: ln(P(1-Q) / (Q(1-P)))).
    return Math.max(
      ...plan.views.map((v, i) => {
        const { p, q } = layers[i]!;
        return v.oracle === "grr" ? Math.log(p / q) : Math.log((p * (1 - q)) / (q * (1 - p)));
      }),
    );
  };

  return {
    report: (record, reportOptions) =>
      serial(async () => {
        const round = reportOptions?.round;
        if (typeof round !== "string" || round.length === 0)
          fail("options", `report: round must be a non-empty string (got ${JSON.stringify(round)})`);
        checkRecord(plan, record, "createReporter.report");
        if (state.rounds.includes(round))
          fail("round", `round ${round} was already reported; nothing was sent`);
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
        await persist(next); // throws before anything is sent; the state in memory is unchanged
        state = next;
        return { report, flush: await flushNow() };
      }),
    flush: () => serial(flushNow),
    ledger: (): ReporterLedger => ({
      campaign,
      eps: Object.keys(state.memo).length * plan.eps,
      maxEps,
      planEps: plan.eps,
      memoized: Object.keys(state.memo).length,
      view: state.view ?? undefined,
      rounds: state.reported,
      reportEps: reportEps(),
      start,
    }),
    pending: (): readonly PendingReport[] => state.queue.slice(),
  };
}
