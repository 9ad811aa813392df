/**
 * Cost of CALM's confidence intervals (issue 18) at n = 2^20 users, d = 32 binary
 * attributes, k = 3, eps = 1: the release (consistency + non-negativity), 50
 * point answers, the same 50 queries with 95% analytic intervals, and the
 * parametric bootstrap (B replicates, each a count-level re-simulation and
 * re-estimation of the release). The 50 queries are random 3-subsets of random
 * views (covered: the analytic path). Target: release + 50 interval queries
 * <= 2 x (release + 50 point queries), median over rounds after an equal JIT warm-up.
 *
 * Run (from packages/calm-core):
 *   npx tsx bench/intervals.ts [--n 1048576] [--d 32] [--k 3] [--eps 1] [--B 20] [--warmup 10] [--rounds 15]
 */
import { seededRng, uniformInt } from "@calm-ldp/random";
import { estimateCalm, planCalm, simulateCalm } from "../src/index.js";
import { markovStore } from "../src/test-support.js";
import { argument } from "./arguments.js";

const n = argument("n", 2 ** 20);
const d = argument("d", 32);
const k = argument("k", 3);
const eps = argument("eps", 1);
const B = argument("B", 20);
const count = 50;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const data = markovStore(seededRng(1), n, new Array(d).fill(2), 0.6);
const plan = planCalm({ schema: data.schema, n, eps, k });
const aggregator = simulateCalm(plan, data, seededRng(2));
const pick = seededRng(3);
const wide = plan.views.map((v) => v.attributes).filter((a) => a.length >= k);
if (wide.length === 0)
  throw new Error(`no view has k = ${k} attributes (plan l = ${plan.l}): raise --n or lower --k`);
const queries: number[][] = [];
while (queries.length < count) {
  const view = wide[uniformInt(pick, wide.length)]!;
  const chosen = new Set<number>();
  while (chosen.size < k) chosen.add(view[uniformInt(pick, view.length)]!);
  queries.push([...chosen].sort((a, b) => a - b));
}
console.log(
  `CALM intervals: n = ${n}, d = ${d}, k = ${k}, eps = ${eps}; plan l = ${plan.l}, m = ${plan.views.length}, ${plan.views.reduce((s, v) => s + v.cells, 0)} view cells; ${count} covered ${k}-way queries`,
);

// Rounds: each a fresh release (estimateCalm), the 50 point answers and the same 50 queries
// with 95% analytic intervals on it (the order of the two alternates between rounds). The
// first `warmup` rounds are not counted (both sides get the same JIT warm-up: a server answers
// many queries; the interval path's numeric loops reach optimised code after ~8 rounds); the
// cold round 1 and the warm-up rounds' ratios are printed apart. Ratio per round, median over
// the rounds. Each part is timed on the wall clock and in this process's CPU time
// (process.cpuUsage, all its threads: GC and compiler included), which other jobs on a shared
// machine disturb less. (Forcing a full GC before each part was tried and dropped: it made the
// release ~3x slower in CPU time, which would flatter the ratio.)
const warmup = argument("warmup", 10);
const rounds = argument("rounds", 15);
const cpuNow = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};
/** Milliseconds of wall clock and of CPU time spent by `run`, and its result. */
function timed<T>(run: () => T): { wall: number; cpu: number; value: T } {
  const cpu0 = cpuNow();
  const wall0 = process.hrtime.bigint();
  const value = run();
  return { wall: ms(wall0), cpu: cpuNow() - cpu0, value };
}
interface Part {
  wall: number;
  cpu: number;
}
interface Round {
  release: Part;
  point: Part;
  interval: Part;
  firstQuery: Part;
  width: number;
}
const ratioOf = (r: Round, clock: keyof Part) =>
  (r.release[clock] + r.interval[clock]) / (r.release[clock] + r.point[clock]);
const measured: Round[] = [];
const warmupRatios: number[] = [];
let cold: Round | undefined;
for (let r = 0; r < warmup + rounds; r++) {
  const release = timed(() => estimateCalm(plan, aggregator));
  const synopsis = release.value;
  const points = () =>
    timed(() => {
      for (const q of queries) synopsis.query(q);
    });
  const intervals = () => {
    let width = 0;
    const first = timed(() => synopsis.query(queries[0]!, { interval: 0.95 }));
    const rest = timed(() => {
      for (const q of queries.slice(1)) {
        const answer = synopsis.query(q, { interval: 0.95 });
        if (answer.intervalMethod !== "analytic") throw new Error("expected the analytic path");
        width += answer.upper[0]! - answer.lower[0]!;
      }
    });
    if (first.value.intervalMethod !== "analytic") throw new Error("expected the analytic path");
    width += first.value.upper[0]! - first.value.lower[0]!;
    return {
      interval: { wall: first.wall + rest.wall, cpu: first.cpu + rest.cpu },
      firstQuery: { wall: first.wall, cpu: first.cpu },
      width: width / count,
    };
  };
  let point: Part;
  let rest: ReturnType<typeof intervals>;
  if (r % 2 === 0) {
    point = points();
    rest = intervals();
  } else {
    rest = intervals();
    point = points();
  }
  const round: Round = { release: { wall: release.wall, cpu: release.cpu }, point, ...rest };
  if (r === 0) cold = round;
  if (r >= warmup) measured.push(round);
  else warmupRatios.push(ratioOf(round, "wall"));
}
const medianOf = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
console.log(`medians over ${rounds} rounds after ${warmup} warm-up rounds (wall clock | CPU time):`);
const line = (label: string, pick: (r: Round) => Part, extra = "") =>
  console.log(
    `${label}${medianOf(measured.map((r) => pick(r).wall)).toFixed(1)} ms | ${medianOf(measured.map((r) => pick(r).cpu)).toFixed(1)} ms${extra}`,
  );
line("release (estimateCalm: consistency + non-negativity): ", (r) => r.release);
line("50 point answers:                                      ", (r) => r.point);
line(
  "50 answers with 95% analytic intervals:                ",
  (r) => r.interval,
  ` (mean width of cell 0 ${medianOf(measured.map((r) => r.width)).toFixed(4)})`,
);
line(
  "  of which the first query (point answer + the release's analytic index: covariance factors, 1-way sums, holder lists): ",
  (r) => r.firstQuery,
);
for (const clock of ["wall", "cpu"] as const) {
  const ratios = measured.map((r) => ratioOf(r, clock));
  console.log(
    `ratio (release + intervals) / (release + points), ${clock === "wall" ? "wall clock" : "CPU time  "}: median ${medianOf(ratios).toFixed(2)} (per round, in order ${ratios
      .map((x) => x.toFixed(2))
      .join(
        " ",
      )}; target <= 2); intervals / points alone = ${(medianOf(measured.map((r) => r.interval[clock])) / medianOf(measured.map((r) => r.point[clock]))).toFixed(1)}`,
  );
}
console.log(
  `warm-up rounds' ratios (wall clock, in order): ${warmupRatios.map((x) => x.toFixed(2)).join(" ")}`,
);
console.log(
  `cold first round (no JIT warm-up), wall clock: release ${cold!.release.wall.toFixed(1)} ms, points ${cold!.point.wall.toFixed(1)} ms, intervals ${cold!.interval.wall.toFixed(1)} ms (first query ${cold!.firstQuery.wall.toFixed(1)} ms), ratio ${ratioOf(cold!, "wall").toFixed(2)}`,
);

const synopsis = estimateCalm(plan, aggregator);
let t = process.hrtime.bigint();
const boot = synopsis.query(queries[0]!, { interval: 0.95, intervalMethod: "bootstrap", replicates: B });
const first = ms(t);
t = process.hrtime.bigint();
for (const q of queries.slice(1))
  synopsis.query(q, { interval: 0.95, intervalMethod: "bootstrap", replicates: B });
const rest = ms(t);
console.log(
  `bootstrap, B = ${B}: replicates drawn and re-estimated once per synopsis ${first.toFixed(0)} ms (${(first / B).toFixed(0)} ms/replicate: count-level re-simulation + estimateCalm), then the other 49 queries ${rest.toFixed(0)} ms; SE ratio bootstrap/analytic on query 0 cell 0: ${(boot.standardError[0]! / synopsis.query(queries[0]!, { interval: 0.95 }).standardError[0]!).toFixed(2)}`,
);
console.log(
  `bootstrap at the default B = 200 would take about ${(((first / B) * 200) / 1000).toFixed(1)} s per release`,
);

// Maximum-entropy answers: 50 random k-subsets that no view covers, point answers (IPF fits)
// against the same queries with calm-core's bound-based interval (analytic intervals of the
// covered parts + Fréchet bounds).
const uncovered: number[][] = [];
while (uncovered.length < count) {
  const chosen = new Set<number>();
  while (chosen.size < k) chosen.add(uniformInt(pick, d));
  const q = [...chosen].sort((a, b) => a - b);
  if (!plan.views.some((v) => q.every((a) => v.attributes.includes(a)))) uncovered.push(q);
}
{
  const fresh = estimateCalm(plan, aggregator);
  let t0 = process.hrtime.bigint();
  for (const q of uncovered) fresh.query(q);
  const points = ms(t0);
  t0 = process.hrtime.bigint();
  let width = 0;
  for (const q of uncovered) {
    const answer = fresh.query(q, { interval: 0.95 });
    if (answer.intervalMethod !== "bounds") throw new Error("expected the bound-based path");
    width += answer.upper[0]! - answer.lower[0]!;
  }
  const bounded = ms(t0);
  console.log(
    `50 uncovered ${k}-way queries: maximum-entropy point answers ${points.toFixed(1)} ms; with 95% bound-based intervals ${bounded.toFixed(1)} ms (${(bounded / count).toFixed(2)} ms/query, ratio ${(bounded / points).toFixed(2)}; mean width of cell 0 ${(width / count).toFixed(4)})`,
  );
}
