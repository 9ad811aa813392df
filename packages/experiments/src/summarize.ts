import type { MethodRun, SummaryRow } from "./api.js";

function meanAndStd(values: readonly number[]): [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  if (values.length === 1) return [mean, 0];
  const variance = values.reduce((s, x) => s + (x - mean) ** 2, 0) / (values.length - 1);
  return [mean, Math.sqrt(variance)];
}

/**
 * Mean and sample standard deviation over repetitions of SSE and TVD, and mean
 * wall time, per (method, eps), in the order methods and eps first appear.
 * Failed runs are counted, not averaged. O(runs).
 */
export function summarize(runs: readonly MethodRun[]): SummaryRow[] {
  const groups = new Map<string, MethodRun[]>();
  for (const run of runs) {
    const key = `${run.method}\u0000${run.eps}`;
    const list = groups.get(key);
    if (list) list.push(run);
    else groups.set(key, [run]);
  }
  return [...groups.values()].map((list) => {
    const ok = list.filter((run) => run.error === undefined);
    const [sseMean, sseStd] = meanAndStd(ok.map((run) => run.sse));
    const [tvdMean, tvdStd] = meanAndStd(ok.map((run) => run.tvd));
    const failed = list.find((run) => run.error !== undefined);
    const withIntervals = ok.filter((run) => run.coverage !== undefined);
    const intervals =
      withIntervals.length > 0
        ? {
            coverage: meanAndStd(withIntervals.map((run) => run.coverage!))[0],
            width: meanAndStd(withIntervals.map((run) => run.width!))[0],
          }
        : {};
    return {
      method: list[0]!.method,
      eps: list[0]!.eps,
      sseMean,
      sseStd,
      tvdMean,
      tvdStd,
      seconds: list.reduce((s, run) => s + run.seconds, 0) / list.length,
      reps: ok.length,
      failures: list.length - ok.length,
      ...(failed ? { error: failed.error } : {}),
      ...intervals,
    };
  });
}
