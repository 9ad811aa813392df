// The package's public entry, not relative paths: the built `testing` entry then
// shares the main entry's classes (InvalidRecordError, ...) instead of bundling copies.
import {
  type BaselineProtocol,
  InvalidParameterError,
  InvalidRecordError,
  runMethod,
} from "@calm-ldp/baselines";
import {
  createRecordStore,
  createSchema,
  type ProtocolParameters,
  type RecordStore,
  recordAt,
  type Schema,
} from "@calm-ldp/marginal-algebra";
import { type Rng, seededRng, uniformInt } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { checkReportLaw } from "./report-law.js";

/** Options of {@link describeMethodContract}. */
export interface MethodContractOptions {
  /**
   * A report of the right outer shape that this method's aggregator must refuse
   * with `MalformedReportError` (e.g. an out-of-range group or cell).
   */
  readonly malformedReport: unknown;
  /** The `method` field the plan must carry (default: the method's `id`). */
  readonly planMethod?: string;
  /** Whether every answer is a distribution (non-negative, summing to 1; default false: unbiased linear answers). */
  readonly distributions?: boolean;
  /** The error an invalid query (an attribute out of range, or repeated) throws (default InvalidParameterError). */
  readonly invalidQueryError?: abstract new (
    ...args: never[]
  ) => Error;
  /** Reports drawn per record in the report-law check (default 2,000). */
  readonly lawReports?: number;
}

/** @internal Four non-binary attributes (cardinalities 3, 2, 4, 5). */
export function contractSchema(): Schema {
  return createSchema([3, 2, 4, 5].map((cardinality, i) => ({ name: `m${i}`, cardinality })));
}

/**
 * @internal Correlated records over `schema`: attribute 0 uniform, every later
 * one equal to (previous value mod c) with probability 1/2, else uniform. O(n d).
 */
export function contractStore(rng: Rng, n: number, schema: Schema): RecordStore {
  const cards = schema.attributes.map((a) => a.labels.length);
  const rows: number[][] = [];
  for (let r = 0; r < n; r++) {
    const row: number[] = [];
    for (let a = 0; a < cards.length; a++) {
      const c = cards[a]!;
      row.push(a > 0 && uniformInt(rng, 2) === 0 ? row[a - 1]! % c : uniformInt(rng, c));
    }
    rows.push(row);
  }
  return createRecordStore(schema, { rows });
}

/**
 * The contract every marginal-release method keeps, as a vitest suite: run it
 * from a method's test file (`@calm-ldp/baselines/testing`). `create(eps)` builds
 * the method (called again with another eps to check that aggregators of another
 * plan are refused). On 600 correlated records over four non-binary attributes at
 * eps = 2, k = 2 it checks: a plain-JSON plan naming the method; reports are
 * counted, a malformed report throws `MalformedReportError` and counts nothing,
 * records outside the schema throw `InvalidRecordError`; two halves merged give
 * exactly the answers of the whole, and another plan's aggregator is refused;
 * queries over the source attributes come back in ascending attribute order with
 * one finite cell per combination (distributions when `distributions`), and
 * invalid queries throw. Where the method declares its report law (`reportLaw`),
 * `report`'s samples for six records (all values 0, all values maximal, four of the
 * data) are tested against it and every part's oracle passes the exact check
 * ({@link checkReportLaw}: family-wise false-alarm rate 1e-6, Bonferroni).
 */
export function describeMethodContract(
  name: string,
  create: () => BaselineProtocol,
  options: MethodContractOptions,
): void {
  const schema = contractSchema();
  const store = contractStore(seededRng(21), 600, schema);
  const parameters: ProtocolParameters = { schema, n: store.size, eps: 2, k: 2 };

  describe(`${name} method contract`, () => {
    const method = create();
    const plan = method.plan(parameters);

    it("has a plain-JSON plan naming the method", () => {
      expect(plan.method).toBe(options.planMethod ?? method.id);
      expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
    });

    it("counts valid reports, rejects malformed ones without counting, and rejects invalid records", () => {
      const aggregator = method.createAggregator(plan);
      const rng = seededRng(1);
      for (let r = 0; r < 10; r++) aggregator.add(method.report(plan, recordAt(store, r), rng));
      expect(aggregator.reports).toBe(10);
      let thrown: unknown;
      try {
        aggregator.add(options.malformedReport as never);
      } catch (error) {
        thrown = error;
      }
      expect((thrown as Error).name).toBe("MalformedReportError");
      expect(aggregator.reports).toBe(10);
      expect(() => method.report(plan, [0, 0, 0], rng)).toThrow(InvalidRecordError);
      expect(() => method.report(plan, [3, 0, 0, 0], rng)).toThrow(InvalidRecordError);
    });

    it("merges: two halves merged answer exactly as the whole; another plan's aggregator is refused", () => {
      const rng = seededRng(2);
      const reports = Array.from({ length: 200 }, (_, r) => method.report(plan, recordAt(store, r), rng));
      const whole = method.createAggregator(plan);
      const first = method.createAggregator(plan);
      const second = method.createAggregator(plan);
      reports.forEach((report, i) => {
        whole.add(report);
        (i < 100 ? first : second).add(report);
      });
      first.merge(second);
      expect(first.reports).toBe(200);
      const a = method.estimate(plan, whole).query([3, 1]);
      const b = method.estimate(plan, first).query([1, 3]);
      expect(a.attributes).toEqual([1, 3]);
      expect(a.cardinalities).toEqual([2, 5]);
      expect(Array.from(b.cells)).toEqual(Array.from(a.cells));
      const other = create().plan({ ...parameters, eps: 1 });
      expect(() => first.merge(method.createAggregator(other))).toThrow();
    });

    if (method.reportLaw !== undefined) {
      it("samples its declared report law for every record tried (goodness of fit, Bonferroni at 1e-6)", () => {
        const cards = schema.attributes.map((a) => a.labels.length);
        const records = [cards.map(() => 0), cards.map((c) => c - 1)];
        for (let r = 0; r < 4; r++) records.push(Array.from(recordAt(store, r)));
        const law = method.reportLaw!(plan);
        const check = checkReportLaw(method, plan, law, records, options.lawReports ?? 2000, seededRng(4));
        expect(check.failures.slice(0, 5), `${check.failures.length} of ${check.tests} tests`).toEqual([]);
      });
    }

    it("answers queries over the source attributes", () => {
      const { aggregator } = runMethod(method, plan, store, seededRng(3));
      const synopsis = method.estimate(plan, aggregator);
      for (const query of [[0], [2, 3], [0, 1]]) {
        const table = synopsis.query(query);
        const size = query.reduce((s, a) => s * schema.attributes[a]!.labels.length, 1);
        expect(table.cells).toHaveLength(size);
        expect(table.unit).toBe("fraction");
        for (const cell of table.cells) expect(Number.isFinite(cell)).toBe(true);
        if (options.distributions) {
          expect(table.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
          for (const cell of table.cells) expect(cell).toBeGreaterThanOrEqual(0);
        }
      }
      const invalid = options.invalidQueryError ?? InvalidParameterError;
      expect(() => synopsis.query([0, 9])).toThrow(invalid);
      expect(() => synopsis.query([1, 1])).toThrow(invalid);
    });
  });
}
