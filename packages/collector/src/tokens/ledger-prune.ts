import type { FastifyInstance } from "fastify";
import type { RoundLookup } from "./issuer-rounds.js";
import type { QuotaStore } from "./ledger.js";

/** Default interval of the scheduled ledger prune: 10 minutes. */
export const DEFAULT_LEDGER_PRUNE_EVERY_MS = 600_000;

/** What one prune did. */
export interface LedgerPruneResult {
  /** Windows dropped: their round is closed, or the id is neither a round nor a campaign any more. */
  readonly pruned: readonly string[];
  /** Windows kept: open rounds, and campaigns (their campaign tokens count for the campaign's life). */
  readonly kept: number;
  /** Windows kept because their state could not be read (the collector unreachable); looked at again next time. */
  readonly unknown: number;
}

/**
 * Drop the quota counts of every window of `ledger` that has expired: a closed
 * round (no more tokens are issued for it, and its tokens are refused by the
 * collector, so its counts protect nothing) or an id the collector no longer
 * knows. Open rounds and campaigns are kept: forgetting one would hand every
 * identity a fresh budget in it. A window whose state cannot be read is kept.
 * Cost: one `windowState` lookup per window (the issuer inside: a cached round
 * read and a state read; apart: one or two HTTP GETs to the collector), one
 * directory removal per pruned window.
 */
export async function pruneLedger(ledger: QuotaStore, rounds: RoundLookup): Promise<LedgerPruneResult> {
  const pruned: string[] = [];
  let kept = 0;
  let unknown = 0;
  for (const window of await ledger.windows()) {
    let state: Awaited<ReturnType<RoundLookup["windowState"]>>;
    try {
      state = await rounds.windowState(window);
    } catch {
      unknown++;
      continue;
    }
    if (state === "open") {
      kept++;
      continue;
    }
    await ledger.forget(window);
    pruned.push(window);
  }
  return { pruned, kept, unknown };
}

/** What {@link scheduleLedgerPrune} needs. */
export interface LedgerPruneSchedule {
  readonly ledger: QuotaStore;
  readonly rounds: RoundLookup;
  /** Milliseconds between prunes (> 0; checked by `ledgerPruneEvery`). */
  readonly everyMs: number;
  /** Called after every prune (e.g. a log line, a metric). */
  readonly done: (result: LedgerPruneResult) => void;
  /** Called when a prune failed (the ledger could not be read or written); the next runs as scheduled. */
  readonly failed: (error: unknown) => void;
}

/**
 * Prune `ledger` every `everyMs` ({@link pruneLedger}), one prune at a time (a
 * tick while one runs is skipped); the timer does not keep the process alive.
 * Returns `stop`, which clears the timer and waits for a running prune.
 */
export function scheduleLedgerPrune(schedule: LedgerPruneSchedule): () => Promise<void> {
  const { ledger, rounds, everyMs, done, failed } = schedule;
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= pruneLedger(ledger, rounds)
      .then(done, failed)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The operator's line for a prune that dropped or could not look up anything (undefined when there is nothing to say). */
export function ledgerPruneLine(result: LedgerPruneResult): string | undefined {
  if (result.pruned.length === 0 && result.unknown === 0) return undefined;
  const ids = result.pruned.length > 0 ? ` (${result.pruned.join(", ")})` : "";
  const unknown =
    result.unknown > 0 ? `; ${result.unknown} could not be looked up (kept, retried next time)` : "";
  return `token quota ledger: pruned ${result.pruned.length} window(s) of closed or removed rounds${ids}; kept ${result.kept}${unknown}`;
}

/** Where a scheduled prune's outcome goes (the collector: Fastify log and metrics; the issuer apart: a line). */
export interface LedgerPruneReporter {
  /** After every prune: its result and the operator's line, undefined when there is nothing to say ({@link ledgerPruneLine}). */
  pruned(result: LedgerPruneResult, line: string | undefined): void;
  /** A prune failed (the ledger could not be read or written); the next runs as scheduled. */
  failed(error: unknown): void;
}

/**
 * The scheduled ledger prune of an issuer (inside the collector or apart):
 * {@link scheduleLedgerPrune} every `everyMs` (nothing when undefined: off),
 * each outcome to `reporter`, stopped when `app` closes.
 */
export function pruneOnSchedule(
  app: FastifyInstance,
  schedule: {
    readonly ledger: QuotaStore;
    readonly rounds: RoundLookup;
    readonly everyMs: number | undefined;
  },
  reporter: LedgerPruneReporter,
): void {
  const { ledger, rounds, everyMs } = schedule;
  if (everyMs === undefined) return;
  const stop = scheduleLedgerPrune({
    ledger,
    rounds,
    everyMs,
    done: (result) => reporter.pruned(result, ledgerPruneLine(result)),
    failed: (error) => reporter.failed(error),
  });
  app.addHook("onClose", stop);
}
