import {
  adaptiveMechanism,
  createOracle,
  type FrequencyOracle,
  type OracleAggregator,
} from "@calm-ldp/frequency-oracles";
import {
  createTable,
  type MarginalTable,
  type ProtocolParameters,
  type RecordStore,
  type ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import { binomialCoefficient, partition, type Rng, uniformInt } from "@calm-ldp/random";
import { checkAnswers, finishAnswer } from "./answers.js";
import type {
  AnswerPostProcessing,
  BaselineOptions,
  BaselineSynopsis,
  GroupPlan,
  GroupReport,
} from "./api.js";
import { decodeAnswer, type EncodingRuntime, encodedQuery, encodingRuntime } from "./encoding.js";
import { MethodTooLargeError, tooLarge, UnsupportedQueryError } from "./errors.js";
import { type GroupIndex, groupIndex } from "./group-index.js";
import { groupInterval } from "./group-interval.js";
import type { IntervalOptions, IntervalTable } from "./hadamard-interval.js";
import { marginalizeMixed } from "./marginalize.js";
import {
  checkParameters,
  checkQuery,
  checkRecord,
  checkStore,
  limitsOf,
  planBase,
  planCardinalities,
} from "./params.js";
import { PartitionedAggregator } from "./partitioned-aggregator.js";
import { perPlan } from "./plan-cache.js";
import { checkAggregator } from "./plan-fingerprint.js";

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
export const groupRuntime: (plan: GroupPlan) => GroupRuntime = perPlan((plan: GroupPlan): GroupRuntime => {
  const cardinalities = planCardinalities(plan);
  const encoding = plan.bits === null ? null : encodingRuntime(plan.schema);
  const digit = encoding === null ? cardinalities : encoding.bits.map((b) => 2 ** b);
  const index = groupIndex(cardinalities.length, plan.k);
  const radices = index.groups.map((group) => group.map((a) => digit[a]!));
  const domains = radices.map((r) => r.reduce((product, c) => product * c, 1));
  const byDomain = new Map<number, FrequencyOracle>();
  const oracles = domains.map((domain) => {
    let oracle = byDomain.get(domain);
    if (oracle === undefined) {
      const name = plan.oracle === "adaptive" ? adaptiveMechanism(plan.eps, domain) : plan.oracle;
      oracle = createOracle(name, { eps: plan.eps, domain });
      byDomain.set(domain, oracle);
    }
    return oracle;
  });
  return { index, cardinalities, radices, domains, oracles, encoding };
});

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
  const where = `${method}.plan`;
  const cardinalities = checkParameters(where, parameters);
  const { maxCells } = limitsOf(options);
  const d = cardinalities.length;
  const { n, k } = parameters;
  const groups = binomialCoefficient(d, k);
  if (groups > n) {
    throw new MethodTooLargeError(
      `${where}: C(${d}, ${k}) = ${groups.toLocaleString("en-US")} groups need at least as many users (n = ${n.toLocaleString("en-US")})`,
      groups,
      n,
      "users",
    );
  }
  if (groups > maxCells) tooLarge(where, `C(${d}, ${k}) groups`, groups, maxCells, "cells");
  const bits = method === "am" ? null : encodingRuntime(parameters.schema).bits;
  const digit = bits === null ? cardinalities : bits.map((b) => 2 ** b);
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

/** @internal Group of every user (uniform, independent) and her cell in it. O(n k). */
function assign(
  plan: GroupPlan,
  store: RecordStore,
  rng: Rng,
  where: string,
): { groups: Uint32Array; cells: Uint32Array; runtime: GroupRuntime } {
  const runtime = groupRuntime(plan);
  checkStore(where, store, runtime.cardinalities);
  const n = store.size;
  const groups = partition(rng, n, plan.groups);
  const cells = new Uint32Array(n);
  const members = runtime.index.groups;
  for (let r = 0; r < n; r++) {
    const g = groups[r]!;
    const group = members[g]!;
    const radices = runtime.radices[g]!;
    let cell = 0;
    for (let i = 0; i < group.length; i++) cell = cell * radices[i]! + store.columns[group[i]!]![r]!;
    cells[r] = cell;
  }
  return { groups, cells, runtime };
}

/**
 * Per-user path: every user picks her group (independently, uniformly, as the
 * client does), then each group's cells go through its oracle's batched client
 * kernel. O(n k + n * report cost).
 */
export function groupPerUser(plan: GroupPlan, store: RecordStore, rng: Rng): GroupAggregator {
  const { groups, cells } = assign(plan, store, rng, `${plan.method}.simulatePerUser`);
  const m = plan.groups;
  const offsets = new Uint32Array(m + 1);
  for (let r = 0; r < groups.length; r++) offsets[groups[r]! + 1]!++;
  for (let g = 0; g < m; g++) offsets[g + 1]! += offsets[g]!;
  const sorted = new Uint32Array(groups.length);
  const cursor = offsets.slice(0, m);
  for (let r = 0; r < groups.length; r++) sorted[cursor[groups[r]!]!++] = cells[r]!;
  const aggregator = new GroupAggregator(plan);
  const runtime = groupRuntime(plan);
  for (let g = 0; g < m; g++) {
    const values = sorted.subarray(offsets[g]!, offsets[g + 1]!);
    if (values.length > 0) aggregator.groups[g]!.addBatch(runtime.oracles[g]!.perturbBatch(values, rng));
  }
  return aggregator;
}

/**
 * Count-level simulation (exact: the group split is drawn per user as clients
 * do, then each group's support counts from its oracle's joint count-level law).
 * O(n k + sum of group cells).
 */
export function groupSimulate(plan: GroupPlan, store: RecordStore, rng: Rng): GroupAggregator {
  const { groups, cells, runtime } = assign(plan, store, rng, `${plan.method}.simulate`);
  const trueCounts = runtime.domains.map((domain) => new Float64Array(domain));
  const sizes = new Float64Array(plan.groups);
  for (let r = 0; r < groups.length; r++) {
    trueCounts[groups[r]!]![cells[r]!]!++;
    sizes[groups[r]!]!++;
  }
  const aggregator = new GroupAggregator(plan);
  trueCounts.forEach((counts, g) => {
    if (sizes[g]! > 0)
      aggregator.groups[g]!.addCounts(runtime.oracles[g]!.simulateCounts(counts, rng), sizes[g]!);
  });
  return aggregator;
}

/** The synopsis of a grouped method. */
export interface GroupSynopsis extends BaselineSynopsis {
  readonly plan: GroupPlan;
  /** Per group, its unbiased estimate (AM: over the group's cells; Marg: over its codes); uniform when empty. */
  readonly tables: readonly Float64Array[];
  /** Groups that received no report. */
  readonly emptyGroups: readonly number[];
  query(attributes: readonly number[]): MarginalTable;
  /** With an interval (analytic, see `groupInterval`): `lower`, `upper`, `standardError` per cell. */
  query(attributes: readonly number[], options: IntervalOptions): IntervalTable;
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
  const where = `${plan.method}.estimate`;
  const post = checkAnswers(where, answers);
  const counts = checkAggregator(where, plan, aggregator, GroupAggregator);
  const runtime = groupRuntime(plan);
  const emptyGroups: number[] = [];
  const tables = counts.groups.map((group, g) => {
    if (group.reports > 0) return group.estimate();
    emptyGroups.push(g);
    return new Float64Array(runtime.domains[g]!).fill(1 / runtime.domains[g]!);
  });
  const empty = new Set(emptyGroups);
  const d = runtime.cardinalities.length;
  function query(attributes: readonly number[]): MarginalTable;
  function query(attributes: readonly number[], options: IntervalOptions): IntervalTable;
  function query(attributes: readonly number[], options?: IntervalOptions): MarginalTable | IntervalTable {
    const q = checkQuery(`${plan.method}.query`, attributes, d);
    if (q.length > plan.k) {
      throw new UnsupportedQueryError(
        `${plan.method}.query: this method holds ${plan.k}-way marginals only and cannot answer a ${q.length}-way query`,
      );
    }
    let used = runtime.index.containing(q).filter((g) => !empty.has(g));
    if (used.length === 0) used = runtime.index.containing(q);
    const digit =
      runtime.encoding === null ? runtime.cardinalities : runtime.encoding.bits.map((b) => 2 ** b);
    const size = q.reduce((product, a) => product * digit[a]!, 1);
    if (options !== undefined) {
      const toTable = (cells: Float64Array): MarginalTable =>
        runtime.encoding === null
          ? createTable(
              q,
              q.map((a) => runtime.cardinalities[a]!),
              { cells },
            )
          : decodeAnswer(
              runtime.encoding,
              createTable(
                encodedQuery(runtime.encoding, q),
                encodedQuery(runtime.encoding, q).map(() => 2),
                { cells },
              ),
              false,
            );
      return groupInterval(
        `${plan.method}.query`,
        used.map((g) => ({
          table: tables[g]!,
          radices: runtime.radices[g]!,
          positions: q.map((a) => runtime.index.groups[g]!.indexOf(a)),
          reports: counts.groups[g]!.reports,
          oracle: runtime.oracles[g]!,
        })),
        size,
        counts.reports,
        options,
        toTable,
        (cells) => finishAnswer(toTable(cells), post),
      );
    }
    const sum = new Float64Array(size);
    const part = new Float64Array(size);
    for (const g of used) {
      const group = runtime.index.groups[g]!;
      const positions = q.map((a) => group.indexOf(a));
      marginalizeMixed(tables[g]!, runtime.radices[g]!, positions, part);
      for (let u = 0; u < size; u++) sum[u]! += part[u]!;
    }
    for (let u = 0; u < size; u++) sum[u]! /= used.length;
    if (runtime.encoding === null) {
      return finishAnswer(
        createTable(
          q,
          q.map((a) => runtime.cardinalities[a]!),
          { cells: sum },
        ),
        post,
      );
    }
    const bitsQuery = encodedQuery(runtime.encoding, q);
    const table = createTable(
      bitsQuery,
      bitsQuery.map(() => 2),
      { cells: sum },
    );
    return finishAnswer(decodeAnswer(runtime.encoding, table, false), post);
  }
  return { plan, tables, emptyGroups, query };
}
