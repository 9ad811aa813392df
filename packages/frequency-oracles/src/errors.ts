import { MalformedReportError, type MalformedReportProblem } from "@calm-ldp/errors";

/**
 * Oracles throw the classes of `@calm-ldp/errors`: `InvalidParameterError` for a
 * parameter outside its domain, and `MalformedReportError` when a report (encoded
 * bytes, a decoded report or a batch) does not belong to the oracle asked to read
 * or count it; nothing is counted then, and `problem` names the failed check.
 */
export {
  fail,
  formatValue,
  InvalidParameterError,
  MalformedReportError,
  type MalformedReportProblem,
} from "@calm-ldp/errors";

/** @internal Throws a {@link MalformedReportError} naming the function and the problem. */
export function malformed(where: string, problem: MalformedReportProblem, detail: string): never {
  throw new MalformedReportError(`${where}: ${detail}`, problem);
}
