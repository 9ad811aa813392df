import { InvalidParameterError } from "@calm-ldp/random";

/**
 * What is wrong with a rejected report, for callers that branch on it:
 * - `type`: not a Uint8Array / not the report shape the oracle produces;
 * - `length`: wrong number of bytes or words;
 * - `magic`, `version`: not a calm-ldp report, or a format version this code does not read;
 * - `oracle`: produced by a different oracle (id mismatch);
 * - `fingerprint`: same oracle id, different parameters (eps, domain, ...);
 * - `value`: the payload is out of range (value >= D, padding bits set, wrong subset size, ...);
 * - `batch`: a report batch from another oracle or with inconsistent sizes.
 */
export type MalformedReportProblem =
  | "type"
  | "length"
  | "magic"
  | "version"
  | "oracle"
  | "fingerprint"
  | "value"
  | "batch";

/**
 * Thrown when a report (encoded bytes, a decoded report or a batch) does not
 * belong to the oracle that is asked to read or count it. Nothing is counted
 * when it is thrown. `problem` names the failed check.
 */
export class MalformedReportError extends TypeError {
  override readonly name = "MalformedReportError";
  constructor(
    message: string,
    readonly problem: MalformedReportProblem,
  ) {
    super(message);
  }
}

export { InvalidParameterError };

/** @internal Throws `InvalidParameterError("<where>: <condition> (got <value>)")`. */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(`${where}: ${condition} (got ${formatValue(got)})`);
}

/** @internal Throws a {@link MalformedReportError} naming the function and the problem. */
export function malformed(where: string, problem: MalformedReportProblem, detail: string): never {
  throw new MalformedReportError(`${where}: ${detail}`, problem);
}

/** @internal */
export function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return `[${value.map(formatValue).join(", ")}]`;
  return String(value);
}
