import type { BaselineProtocol, MethodReportLaw } from "@calm-ldp/baselines";
import {
  chiSquareTail,
  decodeReportWords,
  EXACT_PRIVACY_TOLERANCE,
  exactWorstLogRatio,
  type FitStatistic,
  LawTally,
} from "@calm-ldp/frequency-oracles";
import type { ProtocolPlan } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";

/** What {@link checkReportLaw} found: every test with its p-value, and those below alpha / tests. */
export interface ReportLawCheck {
  readonly tests: number;
  readonly threshold: number;
  /** Parts whose oracle's exact worst log-ratio exceeds eps (text), then failed tests. */
  readonly failures: readonly string[];
}

/**
 * A method's per-user sampler (`report`) against its declared report law
 * ({@link MethodReportLaw}): for each record, `reports` draws of `method.report`;
 * the parts drawn are tested against `partWeights` (Pearson chi-square: they must
 * not depend on the record) and each part's oracle reports, encoded as sent and
 * parsed back, against the oracle's `privacyLaw()` for the record's input
 * (frequency-oracles' `LawTally`: chi-square, per-bit or seed tests). Every part's
 * oracle passes the exact check at the plan's eps. Bonferroni over all tests at
 * family-wise rate `alpha`. Cost: `records x reports` client calls plus the tallies.
 */
export function checkReportLaw<Plan extends ProtocolPlan>(
  method: BaselineProtocol<Plan>,
  plan: Plan,
  law: MethodReportLaw<unknown>,
  records: readonly ArrayLike<number>[],
  reports: number,
  rng: Rng,
  alpha = 1e-6,
): ReportLawCheck {
  const broken: string[] = [];
  const parts = law.partWeights.length;
  for (let part = 0; part < parts; part++) {
    const worst = exactWorstLogRatio(law.oracle(part));
    if (!(worst <= plan.eps + EXACT_PRIVACY_TOLERANCE))
      broken.push(`part ${part}: exact worst log-ratio ${worst} > eps = ${plan.eps}`);
  }
  const tests: FitStatistic[] = [];
  for (const [r, record] of records.entries()) {
    const seen = new Float64Array(parts + 1);
    const tallies = new Map<number, LawTally>();
    for (let i = 0; i < reports; i++) {
      const { part, report } = law.split(method.report(plan, record, rng));
      if (!(Number.isInteger(part) && part >= 0 && part < parts)) {
        seen[parts]! += 1;
        continue;
      }
      seen[part]! += 1;
      const oracle = law.oracle(part);
      let tally = tallies.get(part);
      if (tally === undefined) {
        tally = new LawTally(oracle.privacyLaw(), oracle.domain, law.input(part, record), rng);
        tallies.set(part, tally);
      }
      const words = new Uint32Array(oracle.stride);
      decodeReportWords(
        "checkReportLaw",
        oracle.encode(report),
        oracle.id,
        oracle.fingerprint,
        oracle.stride,
        words,
      );
      tally.add(words, 1, oracle.stride);
    }
    tests.push(partTest(`record ${r}: parts`, seen, law.partWeights, reports));
    for (const [part, tally] of tallies) {
      for (const test of tally.tests())
        tests.push({ ...test, name: `record ${r}, part ${part}: ${test.name}` });
    }
  }
  const threshold = alpha / tests.length;
  const failed = tests
    .filter((t) => t.pValue < threshold)
    .map((t) => `${t.name}: p = ${t.pValue} (${t.detail})`);
  return { tests: tests.length, threshold, failures: [...broken, ...failed] };
}

/** Pearson chi-square of the parts drawn against their weights; a part out of range gives p = 0. */
function partTest(name: string, seen: Float64Array, weights: readonly number[], n: number): FitStatistic {
  if (seen[weights.length]! > 0)
    return { name, pValue: 0, detail: `${seen[weights.length]} reports of no part` };
  if (weights.length === 1) return { name, pValue: 1, detail: "one part" };
  let statistic = 0;
  weights.forEach((w, j) => {
    statistic += (seen[j]! - n * w) ** 2 / (n * w);
  });
  return {
    name,
    pValue: chiSquareTail(statistic, weights.length - 1),
    detail: `chi-square ${statistic.toPrecision(6)} on ${weights.length - 1} degrees of freedom`,
  };
}
