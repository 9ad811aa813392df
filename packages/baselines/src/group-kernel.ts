import {
  adaptiveMechanism,
  createOracle,
  type FrequencyOracle,
  type OracleAggregator,
} from "@calm-ldp/frequency-oracles";
import type { ProtocolParameters, RecordStore, ReportAggregator } from "@calm-ldp/marginal-algebra";
import { perObject } from "@calm-ldp/marginal-algebra";
import { partition, type Rng, uniformInt } from "@calm-ldp/random";
import { linearAnswer } from "./analytic-interval.js";
import { finishAnswer } from "./answers.js";
import type {
  AnswerPostProcessing,
  BaselineOptions,
  GroupPlan,
  GroupReport,
  MethodReportLaw,
} from "./api.js";
import { answerTable, digitRadices, type EncodingRuntime, encodingRuntime } from "./encoding.js";
import { tooLarge } from "./errors.js";
import { type GroupIndex, groupIndex } from "./group-index.js";
import { groupInterval } from "./group-interval.js";
import { type IntervalSynopsis, intervalQuery } from "./intervals.js";
import { meanOfMarginals } from "./marginalize.js";
import {
  checkKWay,
  checkPlanInputs,
  checkRecord,
  checkStore,
  checkUsersPerPart,
  planBase,
  planCardinalities,
} from "./params.js";
import { type PartBatches, PartitionedAggregator, sortByPart } from "./partitioned-aggregator.js";
import { checkEstimateInputs } from "./plan-fingerprint.js";
import type { MethodFamily } from "./protocols/family.js";
import { sharedPerDomain } from "./shared-per-domain.js";

/** @internal Run-time facts of a group plan, built once per plan object. */
export interface GroupRuntime {
  readonly index: GroupIndex;
  readonly cardinalities: readonly number[];
  /** Per group, the radix of each member's digit (AM: c_i; Marg: 2^bits_i). */
  readonly radices: readonly (readonly number[])[];
  /** Per group, its number of cells (the oracle's domain). */
  readonly domains: readonly number[];
  /** Per group, its oracle (shared between groups of the same domain). */
  readonly oracles: readonly FrequencyOracle[];
  readonly encoding: EncodingRuntime | null;
}

/** @internal */
export const groupRuntime: (plan: GroupPlan) => GroupRuntime = /* @__PURE__ */ perObject(
  (plan: GroupPlan): GroupRuntime => {
    const cardinalities = planCardinalities(plan);
    const encoding = plan.bits === null ? null : encodingRuntime(plan.schema);
    const digit = digitRadices(cardinalities, encoding);
    const index = groupIndex(cardinalities.length, plan.k);
    const radices = index.groups.map((group) => group.map((a) => digit[a]!));
    const domains = radices.map((r) => r.reduce((product, c) => product * c, 1));
    const oracles = sharedPerDomain(domains, (domain) => {
      const name = plan.oracle === "adaptive" ? adaptiveMechanism(plan.eps, domain) : plan.oracle;
      return createOracle(name, { eps: plan.eps, domain });
    });
    return { index, cardinalities, radices, domains, oracles, encoding };
  },
);

/**
 * Plan a grouped method (../../../docs/algorithms.md#comparison-methods): users split uniformly into the
 * C(d, k) groups of k attributes; AM reports the group's cell through the adaptive
 * FO (CALM §3.4), MargRR through SUE and MargPS through GRR over the group's
 * binary code (Cormode et al. §4.3). Refuses before starting when there are fewer
 * users than groups (`MethodTooLargeError`, unit "users": AM at d = 32, k = 8 has
 * 10.5 M groups) or when the groups' cells exceed `maxCells`. O(C(d, k) k).
 */
export function planGroups(
  method: GroupPlan["method"],
  parameters: ProtocolParameters,
  options: BaselineOptions = {},
): GroupPlan {
  const { where, cardinalities, maxCells } = checkPlanInputs(method, parameters, options);
  const d = cardinalities.length;
  const { n, k } = parameters;
  const groups = checkUsersPerPart(where, "groups", d, k, n);
  if (groups > maxCells) tooLarge(where, `C(${d}, ${k}) groups`, groups, maxCells, "cells");
  const bits = method === "am" ? null : encodingRuntime(parameters.schema).bits;
  const digit = digitRadices(cardinalities, bits === null ? null : { bits });
  let cells = 0;
  for (const group of groupIndex(d, k).groups) cells += group.reduce((product, a) => product * digit[a]!, 1);
  if (cells > maxCells) tooLarge(where, "the groups' tables", cells, maxCells, "cells");
  return {
    ...planBase(method, parameters, bits),
    groups,
    oracle: method === "am" ? "adaptive" : method === "margrr" ? "sue" : "grr",
  };
}

/** @internal The cell of a (validated) record in group g's table. O(k). */
function groupCell(runtime: GroupRuntime, g: number, record: ArrayLike<number>): number {
  const group = runtime.index.groups[g]!;
  const radices = runtime.radices[g]!;
  let cell = 0;
  for (let i = 0; i < group.length; i++) cell = cell * radices[i]! + record[group[i]!]!;
  return cell;
}

/**
 * Client: pick a group uniformly, project the record onto it (AM: mixed-radix
 * cell; Marg: binary code of the group's values) and perturb the cell with the
 * group's oracle and the whole eps. O(d + oracle cost).
 */
export function groupReport(plan: GroupPlan, record: ArrayLike<number>, rng: Rng): GroupReport {
  const runtime = groupRuntime(plan);
  checkRecord(`${plan.method}.report`, record, runtime.cardinalities);
  const group = uniformInt(rng, plan.groups);
  const report = runtime.oracles[group]!.perturb(groupCell(runtime, group, record), rng) as
    | number
    | Uint32Array;
  return { group, report };
}

/**
 * The declared report law of a grouped method: a uniform group, then the group's
 * oracle on the record's cell of that group (what {@link groupReport} sends). O(groups).
 */
export function groupReportLaw(plan: GroupPlan): MethodReportLaw<GroupReport> {
  const runtime = groupRuntime(plan);
  return {
    partWeights: Array.from({ length: plan.groups }, () => 1 / plan.groups),
    oracle: (group) => runtime.oracles[group]!,
    input: (group, record) => groupCell(runtime, group, record),
    split: (report) => ({ part: report.group, report: report.report }),
  };
}

/** Server side of a grouped method: one oracle aggregator per group (O(sum of group cells) memory). */
export class GroupAggregator extends PartitionedAggregator<GroupPlan, GroupReport> {
  constructor(plan: GroupPlan) {
    super(
      plan,
      "group",
      groupRuntime(plan).oracles.map(
        (oracle) => oracle.createAggregator() as OracleAggregator<GroupReport["report"]>,
      ),
    );
  }

  /** Per group, its oracle aggregator (the parts). */
  get groups(): readonly OracleAggregator<GroupReport["report"]>[] {
    return this.parts;
  }
}

/**
 * @internal Every user's group (uniform, independent, as the client draws it) and
 * her cell in it, grouped by group. O(n k).
 */
function assign(plan: GroupPlan, store: RecordStore, rng: Rng, where: string): PartBatches {
  const runtime = groupRuntime(plan);
  checkStore(where, store, runtime.cardinalities);
  const record = new Array<number>(store.columns.length);
  return sortByPart(partition(rng, store.size, plan.groups), plan.groups, (r, g) => {
    for (const a of runtime.index.groups[g]!) record[a] = store.columns[a]![r]!;
    return groupCell(runtime, g, record);
  });
}

/**
 * Per-user path: every user picks her group (independently, uniformly, as the
 * client does), then each group's cells go through its oracle's batched client
 * kernel. O(n k + n * report cost).
 */
export function groupPerUser(plan: GroupPlan, store: RecordStore, rng: Rng): GroupAggregator {
  const batches = assign(plan, store, rng, `${plan.method}.simulatePerUser`);
  const { oracles } = groupRuntime(plan);
  const aggregator = new GroupAggregator(plan);
  aggregator.perturbParts(batches, (g) => oracles[g]!, rng);
  return aggregator;
}

/**
 * Count-level simulation (exact: the group split is drawn per user as clients
 * do, then each group's support counts from its oracle's joint count-level law).
 * O(n k + sum of group cells).
 */
export function groupSimulate(plan: GroupPlan, store: RecordStore, rng: Rng): GroupAggregator {
  const batches = assign(plan, store, rng, `${plan.method}.simulate`);
  const { oracles, domains } = groupRuntime(plan);
  const aggregator = new GroupAggregator(plan);
  aggregator.simulateParts(
    batches,
    (g) => oracles[g]!,
    (g) => domains[g]!,
    rng,
  );
  return aggregator;
}

/** The synopsis of a grouped method (intervals: analytic, see `groupInterval`). */
export interface GroupSynopsis extends IntervalSynopsis {
  readonly plan: GroupPlan;
  /** Per group, its unbiased estimate (AM: over the group's cells; Marg: over its codes); uniform when empty. */
  readonly tables: readonly Float64Array[];
  /** Groups that received no report. */
  readonly emptyGroups: readonly number[];
}

/**
 * Server: each group's unbiased table. A k-way query is its group's table; a
 * query of t < k attributes is the mean of the projections of every group that
 * contains it and received reports (Marg: projected over codes, then decoded);
 * t > k throws `UnsupportedQueryError` (AM "only answers k-way queries and
 * lower", CALM §3.4). O(sum of group cells) to estimate; a query costs
 * O(C(d - t, k - t) |group|).
 */
export function groupEstimate(
  plan: GroupPlan,
  aggregator: ReportAggregator<GroupReport>,
  answers: AnswerPostProcessing = "none",
): GroupSynopsis {
  const [counts, post] = checkEstimateInputs(plan, aggregator, GroupAggregator, answers);
  const runtime = groupRuntime(plan);
  const emptyGroups: number[] = [];
  const tables = counts.groups.map((group, g) => {
    if (group.reports > 0) return group.estimate();
    emptyGroups.push(g);
    return new Float64Array(runtime.domains[g]!).fill(1 / runtime.domains[g]!);
  });
  const empty = new Set(emptyGroups);
  const d = runtime.cardinalities.length;
  const query = intervalQuery(plan.method, d, (q, options) => {
    checkKWay(plan.method, plan.k, q);
    let used = runtime.index.containing(q).filter((g) => !empty.has(g));
    if (used.length === 0) used = runtime.index.containing(q);
    const digit = digitRadices(runtime.cardinalities, runtime.encoding);
    const size = q.reduce((product, a) => product * digit[a]!, 1);
    const linear = (cells: Float64Array) => answerTable(runtime.encoding, runtime.cardinalities, q, cells);
    const groups = used.map((g) => ({
      cells: tables[g]!,
      radices: runtime.radices[g]!,
      positions: q.map((a) => runtime.index.groups[g]!.indexOf(a)),
      reports: counts.groups[g]!.reports,
      oracle: runtime.oracles[g]!,
    }));
    if (options !== undefined)
      return groupInterval(groups, size, counts.reports, linearAnswer(plan.method, options, linear, post));
    return finishAnswer(linear(meanOfMarginals(groups.length, size, (i) => groups[i]!)), post);
  });
  return { plan, tables, emptyGroups, query };
}

/** The kernel functions of the grouped methods (AM, MargRR, MargPS); `protocols/group.ts` adds the expected SSE. */
export const GROUP_KERNELS: MethodFamily<GroupPlan, GroupReport, BaselineOptions, GroupSynopsis> = {
  plan: planGroups,
  report: groupReport,
  Aggregator: GroupAggregator,
  estimate: groupEstimate,
  simulate: groupSimulate,
  simulatePerUser: groupPerUser,
  reportLaw: groupReportLaw,
};
