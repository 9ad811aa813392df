import { clopperPearsonLower, clopperPearsonUpper, exactWorstLogRatio } from "@calm-ldp/frequency-oracles";
import { recordCellIndex } from "@calm-ldp/marginal-algebra";
import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createReporter } from "./create-reporter.js";
import { perturbRecord } from "./perturb-record.js";
import { memoizedReport, type ReporterCore, reporterCore, reporterView } from "./reporter-core.js";
import { memoryStorage } from "./storage.js";
import { wireKindPlans } from "./testing.js";

/*
 * Privacy across rounds, audited on the code a device runs (../../../docs/algorithms.md#frequency-oracles's
 * discipline, applied to a sequence of reports).
 *
 * Exact part. A client is described by which of its random draws are shared
 * between rounds: the group (view) and the permanent response. The joint law of
 * T reports of one unchanged record x is then
 *   shared view + shared response (createReporter):
 *     Pr[o_1..o_T | x] = sum_v 1/m sum_y P_v(y | c_v(x)) prod_t K_v(o_t | y)
 *   shared view, fresh response (a reporter whose memo is broken):
 *     Pr = sum_v 1/m prod_t sum_y P_v(y | c_v(x)) K_v(o_t | y)
 *   fresh view + fresh response (plain createReport every round):
 *     Pr = prod_t sum_v 1/m sum_y P_v(y | c_v(x)) K_v(o_t | y)
 * where o = (view, value), P_v is the view's oracle law (`privacyLaw()` of the
 * very oracle objects the reporter's core built) and K_v(o | y) the per-report
 * channel from the permanent response y: the identity, or the instantaneous
 * layer's GRR at instantEps (its p2, q2, again from the core's layer objects).
 * The worst log-ratio over all pairs of records and all output sequences is
 * enumerated for T = 2; for T = 50 through sufficient statistics (the counts of
 * each value, or the product over independent rounds).
 *
 * Empirical part. Seeded simulations of 10^6 users run the reporter's sampling
 * core (`memoizedReport`, exactly what `createReporter` calls) and the plain
 * client step (`perturbRecord`, exactly what `createReport` calls), and
 * lower-bound the joint eps by an event's Clopper-Pearson ratio (99% confidence).
 */

const plan = wireKindPlans().grr!; // 6 binary attributes, 15 two-way views through GRR (4 cells), eps = 1
const m = plan.views.length;
const records = Array.from({ length: 64 }, (_, r) => Array.from({ length: 6 }, (_, a) => (r >>> a) & 1));
const zeros = records[0]!;
const ones = records[63]!;

type Sharing = { view: boolean; response: boolean };
const REPORTER: Sharing = { view: true, response: true };
const BROKEN_MEMO: Sharing = { view: true, response: false };
const NAIVE: Sharing = { view: false, response: false };

/** P_v(. | cell) from the core's oracle objects (their exact privacy law). */
function oracleLaw(core: ReporterCore, v: number, cell: number): Float64Array {
  const law = core.runtime.oracles[v]!.privacyLaw();
  if (law.kind !== "categorical") throw new Error("this audit enumerates categorical (GRR) views");
  return law.probabilities(cell, new Float64Array(law.outputs));
}

/** K_v(o | y): identity, or the core's instantaneous layer at instantEps. */
function channel(core: ReporterCore, v: number): (o: number, y: number) => number {
  const layer = core.layers?.[v];
  return layer ? (o, y) => (o === y ? layer.p2 : layer.q2) : (o, y) => (o === y ? 1 : 0);
}

/** The record's cell in view v, as the reporter computes it. */
function cellOf(record: readonly number[], v: number): number {
  const attributes = plan.views[v]!.attributes;
  return recordCellIndex(
    record,
    attributes,
    attributes.map(() => 2),
  );
}

/** Worst ln(Pr[s | x] / Pr[s | x']) over ordered pairs of laws (rows) and outcomes s. */
function worstRatio(laws: readonly Float64Array[]): number {
  let worst = 0;
  for (const a of laws)
    for (const b of laws) {
      if (a === b) continue;
      for (let s = 0; s < a.length; s++) {
        if (a[s]! === 0) continue;
        if (b[s]! === 0) return Number.POSITIVE_INFINITY;
        worst = Math.max(worst, Math.log(a[s]! / b[s]!));
      }
    }
  return worst;
}

/** Exact joint law of 2 reports (outputs o = view * D + value, sequences o1 * (m D) + o2) for every record. */
function jointLawOfTwo(core: ReporterCore, sharing: Sharing): Float64Array[] {
  const D = plan.views[0]!.cells;
  const outputs = m * D;
  return records.map((record) => {
    const law = new Float64Array(outputs * outputs);
    // Pr[(v, o) | x, permanent y] summed as the sharing dictates.
    const single = (v: number) => oracleLaw(core, v, cellOf(record, v));
    if (sharing.view && sharing.response) {
      for (let v = 0; v < m; v++) {
        const P = single(v);
        const K = channel(core, v);
        for (let o1 = 0; o1 < D; o1++)
          for (let o2 = 0; o2 < D; o2++) {
            let pr = 0;
            for (let y = 0; y < D; y++) pr += P[y]! * K(o1, y) * K(o2, y);
            law[(v * D + o1) * outputs + v * D + o2]! += pr / m;
          }
      }
    } else {
      const marginal = (v: number) => {
        const P = single(v);
        const K = channel(core, v);
        return Array.from({ length: D }, (_, o) => P.reduce((s, p, y) => s + p * K(o, y), 0));
      };
      for (let v1 = 0; v1 < m; v1++)
        for (let v2 = 0; v2 < m; v2++) {
          if (sharing.view && v1 !== v2) continue;
          const weight = sharing.view ? 1 / m : 1 / (m * m);
          const a = marginal(v1);
          const b = marginal(v2);
          for (let o1 = 0; o1 < D; o1++)
            for (let o2 = 0; o2 < D; o2++)
              law[(v1 * D + o1) * outputs + v2 * D + o2]! += weight * a[o1]! * b[o2]!;
        }
    }
    const total = law.reduce((s, p) => s + p, 0);
    if (Math.abs(total - 1) > 1e-12) throw new Error(`the joint law sums to ${total}`);
    return law;
  });
}

/** All count vectors (n_0..n_{D-1}) summing to T. */
function compositions(T: number, D: number): number[][] {
  if (D === 1) return [[T]];
  const out: number[][] = [];
  for (let first = 0; first <= T; first++)
    for (const rest of compositions(T - first, D - 1)) out.push([first, ...rest]);
  return out;
}

/**
 * Exact worst joint log-ratio of T reports of an unchanged record, for T too large
 * to list the sequences. With the view and the response shared, the view is seen
 * and the law of a sequence in view v given x depends on its value counts n:
 * (1/m) sum_y P_v(y | c) prod_o K_v(o | y)^{n_o}, so the worst ratio is the max
 * over views, pairs of cells (every pair occurs: the attributes are free) and
 * counts. With nothing shared the rounds are independent and identically
 * distributed, so the worst ratio of the product is T times the worst of one
 * report (product structure; the same pair of records is worst in every round).
 * With the view shared only, it is the max over views of T times the view's worst.
 */
function jointWorst(core: ReporterCore, sharing: Sharing, T: number): number {
  const D = plan.views[0]!.cells;
  if (!sharing.response) {
    const one = (v: number, c: number, c2: number) => {
      const K = channel(core, v);
      const a = oracleLaw(core, v, c);
      const b = oracleLaw(core, v, c2);
      let worst = 0;
      for (let o = 0; o < D; o++) {
        const pa = a.reduce((s, p, y) => s + p * K(o, y), 0);
        const pb = b.reduce((s, p, y) => s + p * K(o, y), 0);
        if (pa > 0) worst = Math.max(worst, pb === 0 ? Number.POSITIVE_INFINITY : Math.log(pa / pb));
      }
      return worst;
    };
    let worst = 0;
    for (let x = 0; x < records.length; x++)
      for (let x2 = 0; x2 < records.length; x2++) {
        if (x === x2) continue;
        // One report of fresh view: outputs (v, o), Pr = (1/m) P'_v(o): the 1/m cancels per output.
        const perView = plan.views.map((_, v) => one(v, cellOf(records[x]!, v), cellOf(records[x2]!, v)));
        worst = Math.max(worst, T * Math.max(...perView));
      }
    return worst;
  }
  const counts = compositions(T, D);
  let worst = 0;
  for (let v = 0; v < m; v++) {
    const K = channel(core, v);
    const laws = Array.from({ length: D }, (_, c) => {
      const P = oracleLaw(core, v, c);
      return Float64Array.from(counts, (n) => {
        let pr = 0;
        for (let y = 0; y < D; y++) {
          let term = P[y]!;
          for (let o = 0; o < D; o++) term *= K(o, y) ** n[o]!;
          pr += term;
        }
        return pr;
      });
    });
    worst = Math.max(worst, worstRatio(laws));
  }
  return worst;
}

/** Clopper-Pearson lower bound (99%: alpha 0.005 per side) on ln(Pr[E | a] / Pr[E | b]). */
function epsLower(hitsA: number, hitsB: number, users: number): number {
  return Math.log(clopperPearsonLower(hitsA, users, 0.005) / clopperPearsonUpper(hitsB, users, 0.005));
}

/** One simulated user: her T report values (view * D + value) from the real client code. */
type Client = (core: ReporterCore, record: readonly number[], T: number, rng: Rng, out: Int32Array) => void;
const D = plan.views[0]!.cells;
const clients: Record<string, Client> = {
  // What createReporter runs: group kept, memo kept.
  reporter: (core, record, T, rng, out) => {
    const view = reporterView(core, null, undefined, rng);
    const memo = {};
    for (let t = 0; t < T; t++)
      out[t] = view * D + (memoizedReport(core, view, record, memo, rng).payload as number);
  },
  // A deliberately broken reporter: the group is kept but the memo is lost every round.
  "broken memo": (core, record, T, rng, out) => {
    const view = reporterView(core, null, undefined, rng);
    for (let t = 0; t < T; t++)
      out[t] = view * D + (memoizedReport(core, view, record, {}, rng).payload as number);
  },
  // The naive per-round client: createReport's sampling step every round.
  naive: (_core, record, T, rng, out) => {
    for (let t = 0; t < T; t++) {
      const { view, report } = perturbRecord(plan, record, rng, undefined);
      out[t] = view * D + (report as number);
    }
  },
};

/**
 * Simulate `users` users with record 0...0 and as many with 1...1 through `client`
 * and count, per record, the users with at least `k` of their T reports on value 0
 * (the cell of 0...0 in every view; 1...1 is cell 3 in every view).
 */
function simulate(client: Client, core: ReporterCore, T: number, users: number, k: number, seed: number) {
  const rng = seededRng(seed);
  const out = new Int32Array(T);
  const hits = [0, 0];
  for (const [i, record] of [zeros, ones].entries()) {
    for (let u = 0; u < users; u++) {
      client(core, record, T, rng, out);
      let onZero = 0;
      for (let t = 0; t < T; t++) if (out[t]! % D === 0) onZero++;
      if (onZero >= k) hits[i]!++;
    }
  }
  return hits as [number, number];
}

/** Binomial upper tail Pr[Bin(T, p) >= k]. */
function tail(T: number, p: number, k: number): number {
  let total = 0;
  for (let j = k; j <= T; j++) {
    let logC = 0;
    for (let i = 1; i <= j; i++) logC += Math.log((T - j + i) / i);
    total += Math.exp(logC + j * Math.log(p) + (T - j) * Math.log(1 - p));
  }
  return total;
}

describe("privacy across rounds (GRR plan: 6 binary attributes, 15 views, eps = 1)", () => {
  const core = reporterCore(plan, undefined);
  const eps = plan.eps;

  it("the real reporter re-sends the memoized report of an unchanged record, and its ledger stays at plan eps", async () => {
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: eps,
      rng: seededRng(40),
    });
    const first = await reporter.report(zeros, { round: "r0" });
    for (let t = 1; t < 50; t++) {
      const { report } = await reporter.report(zeros, { round: `r${t}` });
      expect([report.view, report.value]).toEqual([first.report.view, first.report.value]);
    }
    expect(reporter.ledger()).toMatchObject({ eps, memoized: 1, rounds: 50 });
  });

  it("exact, 2 rounds, every pair of records and every output sequence: memoized = eps; naive 2 eps; broken memo 2 eps", () => {
    const reporter = worstRatio(jointLawOfTwo(core, REPORTER));
    const naive = worstRatio(jointLawOfTwo(core, NAIVE));
    const broken = worstRatio(jointLawOfTwo(core, BROKEN_MEMO));
    console.log(`exact joint eps, 2 rounds: reporter ${reporter}, naive ${naive}, broken memo ${broken}`);
    expect(reporter).toBeLessThanOrEqual(eps + 1e-9);
    expect(reporter).toBeCloseTo(eps, 9);
    expect(naive).toBeCloseTo(2 * eps, 9);
    expect(broken).toBeCloseTo(2 * eps, 9);
    // The count-based computation used for 50 rounds agrees with the enumeration at 2.
    expect(jointWorst(core, REPORTER, 2)).toBeCloseTo(reporter, 12);
    expect(jointWorst(core, NAIVE, 2)).toBeCloseTo(naive, 12);
  });

  it("exact, 50 rounds: memoized = eps; naive 50 eps", () => {
    const reporter = jointWorst(core, REPORTER, 50);
    const naive = jointWorst(core, NAIVE, 50);
    const broken = jointWorst(core, BROKEN_MEMO, 50);
    console.log(`exact joint eps, 50 rounds: reporter ${reporter}, naive ${naive}, broken memo ${broken}`);
    expect(reporter).toBeLessThanOrEqual(eps + 1e-9);
    expect(reporter).toBeCloseTo(eps, 9);
    expect(naive).toBeCloseTo(50 * eps, 9);
    expect(broken).toBeCloseTo(50 * eps, 9);
  });

  it("exact, with the instantaneous layer (instantEps = 0.5): one report is reportEps, any number of reports <= the ledger's plan eps", async () => {
    const layered = reporterCore(plan, 0.5);
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: eps,
      instantEps: 0.5,
      rng: seededRng(41),
    });
    for (let t = 0; t < 50; t++) await reporter.report(zeros, { round: `r${t}` });
    const ledger = reporter.ledger();
    expect(ledger.eps).toBe(eps);
    const one = jointWorst(layered, REPORTER, 1);
    const two = worstRatio(jointLawOfTwo(layered, REPORTER));
    const fifty = jointWorst(layered, REPORTER, 50);
    console.log(
      `exact joint eps with instantEps 0.5: 1 report ${one}, 2 reports ${two}, 50 reports ${fifty}`,
    );
    expect(one).toBeCloseTo(ledger.reportEps, 9);
    expect(jointWorst(layered, REPORTER, 2)).toBeCloseTo(two, 12);
    expect(one).toBeLessThan(two);
    expect(two).toBeLessThan(fifty);
    expect(fifty).toBeLessThanOrEqual(ledger.eps + 1e-9);
    // Without memoization the layer would not help: fresh permanent responses each round add up.
    expect(jointWorst(layered, NAIVE, 50)).toBeCloseTo(50 * one, 9);
  });

  for (const T of [2, 50]) {
    // Users per record (0...0 and 1...1): the reporter always 10^6 users in all; the
    // per-round clients 10^5 per record at 50 rounds (50 draws per user each), plenty to exceed eps.
    const users = (name: string) => (T === 2 ? 1_000_000 : name === "reporter" ? 500_000 : 100_000);
    it(`empirical, ${T} rounds, >= 10^6 simulated users of the reporter: its lower bound agrees with eps, the naive and broken clients' exceed it`, () => {
      const { p, q } = core.runtime.oracles[0]! as unknown as { p: number; q: number };
      // Event: at least k of the T reports on the cell of 0...0. For the reporter all
      // reports are equal (k = T is the same event as k = 1); for the per-round clients
      // pick k, before sampling, from the exact tails: the k whose expected counts give the
      // largest Clopper-Pearson bound (chosen from the model, not the samples, so the bound
      // stays valid). No event can show more than ln(n / CP upper of 0 hits) = `cap` from n
      // users per record: Pr[E | 1...1] must be seen to be small, Pr[E | 0...0] <= 1.
      const perRound = users("naive");
      const expected = (j: number) =>
        epsLower(Math.round(tail(T, p, j) * perRound), Math.round(tail(T, q, j) * perRound), perRound);
      let k = T;
      for (let j = 1; j <= T; j++) if (expected(j) > expected(k)) k = j;
      const cap = Math.log(1 / clopperPearsonUpper(0, perRound, 0.005));
      const bounds: Record<string, number> = {};
      for (const [name, client] of Object.entries(clients)) {
        const [a, b] = simulate(client, core, T, users(name), name === "reporter" ? T : k, 4200 + T);
        bounds[name] = epsLower(a, b, users(name));
      }
      console.log(
        `empirical eps lower bounds, ${T} rounds, ${users("reporter")} (reporter) and ${perRound} (others) users per record (k = ${k}): ${JSON.stringify(bounds)}; exact naive ${T * eps}, exact event ratio ln(P(k)/Q(k)) = ${Math.log(tail(T, p, k) / tail(T, q, k))}; expected bound at k ${expected(k)}; no event can show more than ${cap} from ${perRound} users per record`,
      );
      expect(bounds.reporter!).toBeLessThanOrEqual(eps);
      expect(bounds.reporter!).toBeGreaterThan(eps - 0.1);
      // 50 rounds: well past eps, and within 1.5 of what any event can show at this sample size.
      expect(bounds.naive!).toBeGreaterThan(T === 2 ? 1.8 * eps : Math.max(8 * eps, cap - 1.5));
      expect(bounds["broken memo"]!).toBeGreaterThan(T === 2 ? 1.8 * eps : Math.max(8 * eps, cap - 1.5));
    }, 400_000);
  }

  it("empirical, 2 rounds with instantEps 0.5, 10^6 simulated users per record: the lower bound agrees with the exact joint eps", () => {
    const layered = reporterCore(plan, 0.5);
    const users = 1_000_000;
    // Event: both reports on the cell of 0...0 (value 0 in every view). Its exact ratio from the
    // joint law (every view alike): sum_y P(y|0) K(0|y)^2 / sum_y P(y|3) K(0|y)^2.
    const P0 = oracleLaw(layered, 0, 0);
    const P3 = oracleLaw(layered, 0, 3);
    const K = channel(layered, 0);
    const both = (P: Float64Array) => P.reduce((s, p, y) => s + p * K(0, y) ** 2, 0);
    const eventRatio = Math.log(both(P0) / both(P3));
    const exact = worstRatio(jointLawOfTwo(layered, REPORTER));
    const [a, b] = simulate(clients.reporter!, layered, 2, users, 2, 4300);
    const bound = epsLower(a, b, users);
    console.log(
      `instantEps 0.5, 2 rounds: empirical lower bound ${bound} (${a} / ${b} of ${users}); event's exact ratio ${eventRatio}; exact joint eps ${exact}`,
    );
    expect(bound).toBeLessThanOrEqual(exact);
    expect(bound).toBeGreaterThan(eventRatio - 0.05);
  }, 120_000);
});

/**
 * Unary views (OUE): a report is a bitset, its bits independent given the cell,
 * and through the instantaneous layer each bit of the memoized bitset is
 * re-randomized independently (1 stays 1 w.p. p2, 0 becomes 1 w.p. q2; without a
 * layer p2 = 1, q2 = 0). So the T reports' bit j depends on the cell only through
 * the permanent bit j, and the count k of ones in its T copies is sufficient:
 *   Pr[bit-j sequence | c] = pi_j(c) p2^k (1-p2)^(T-k) + (1 - pi_j(c)) q2^k (1-q2)^(T-k),
 * pi_j(c) = Pr[permanent bit j = 1 | c] from the oracle's own law. The bit
 * sequences are independent across j, so the worst joint log-ratio of a cell pair
 * is the sum over bits of each bit's worst ratio over k. Fresh responses every
 * round: T times the single report's worst (product structure).
 */
describe("privacy across rounds (OUE plan: 6 binary attributes, views of 5 attributes = 32 cells, eps = 1)", () => {
  const oue = wireKindPlans().oue!;
  const eps = oue.eps;

  function unaryJointWorst(core: ReporterCore, memoized: boolean, T: number): number {
    let worst = 0;
    for (let v = 0; v < oue.views.length; v++) {
      const law = core.runtime.oracles[v]!.privacyLaw();
      if (law.kind !== "independent-bits") throw new Error("expected a unary view");
      const cells = oue.views[v]!.cells;
      const layer = core.layers?.[v];
      const [p2, q2] = layer ? [layer.p2, layer.q2] : [1, 0];
      const pi = Array.from({ length: cells }, (_, c) => law.probabilities(c, new Float64Array(law.bits)));
      // Law of the count of ones of one bit over R rounds (sequence probability, for each k).
      const bitLaw = (p: number, R: number, k: number) =>
        memoized
          ? p * p2 ** k * (1 - p2) ** (R - k) + (1 - p) * q2 ** k * (1 - q2) ** (R - k)
          : (p * p2 + (1 - p) * q2) ** k * (1 - (p * p2 + (1 - p) * q2)) ** (R - k);
      const rounds = memoized ? T : 1; // fresh: one round, times T below
      for (let c = 0; c < cells; c++)
        for (let c2 = 0; c2 < cells; c2++) {
          if (c === c2) continue;
          let total = 0;
          for (let j = 0; j < law.bits; j++) {
            let bit = 0;
            for (let k = 0; k <= rounds; k++) {
              const a = bitLaw(pi[c]![j]!, rounds, k);
              const b = bitLaw(pi[c2]![j]!, rounds, k);
              if (a === 0) continue;
              if (b === 0) return Number.POSITIVE_INFINITY;
              bit = Math.max(bit, Math.log(a / b));
            }
            total += bit;
          }
          worst = Math.max(worst, memoized ? total : T * total);
        }
    }
    return worst;
  }

  it("exact: memoized = eps for 2 and 50 reports; a per-round client 2 eps and 50 eps; with instantEps 0.5 <= the ledger", async () => {
    const core = reporterCore(oue, undefined);
    const layered = reporterCore(oue, 0.5);
    // One report: the oracle's own exact worst ratio (frequency-oracles' exactWorstLogRatio).
    expect(unaryJointWorst(core, true, 1)).toBeCloseTo(exactWorstLogRatio(core.runtime.oracles[0]!), 9);
    const figures = {
      memo2: unaryJointWorst(core, true, 2),
      memo50: unaryJointWorst(core, true, 50),
      naive2: unaryJointWorst(core, false, 2),
      naive50: unaryJointWorst(core, false, 50),
      layer1: unaryJointWorst(layered, true, 1),
      layer2: unaryJointWorst(layered, true, 2),
      layer50: unaryJointWorst(layered, true, 50),
    };
    console.log(`OUE exact joint eps: ${JSON.stringify(figures)}`);
    expect(figures.memo2).toBeCloseTo(eps, 9);
    expect(figures.memo50).toBeCloseTo(eps, 9);
    expect(figures.naive2).toBeCloseTo(2 * eps, 9);
    expect(figures.naive50).toBeCloseTo(50 * eps, 9);
    const reporter = await createReporter({
      plan: oue,
      storage: memoryStorage(),
      maxEps: eps,
      instantEps: 0.5,
      rng: seededRng(42),
    });
    for (let t = 0; t < 3; t++) await reporter.report([1, 0, 1, 0, 1, 0], { round: `r${t}` });
    const ledger = reporter.ledger();
    expect(figures.layer1).toBeCloseTo(ledger.reportEps, 9);
    expect(figures.layer1).toBeLessThan(figures.layer2);
    expect(figures.layer2).toBeLessThan(figures.layer50);
    expect(figures.layer50).toBeLessThanOrEqual(ledger.eps + 1e-9);
  });
});
