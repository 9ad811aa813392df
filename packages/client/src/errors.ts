import { CalmLdpError } from "@calm-ldp/errors";

/**
 * Why a wire report was refused (the collector's `reason` for it):
 * - `id`: the report id is not a lower-case UUID;
 * - `view`: the view index is not a view of the plan;
 * - `kind`: the report carries the field of another oracle (`bits` for a GRR view, ...) or none;
 * - `value`: a GRR value outside [0, cells);
 * - `bits`: not canonical base64, the wrong length for the view, or bits set at or beyond `cells`;
 * - `oracle`: the view's oracle has no wire format here (only GRR, OUE and SUE do).
 */
export type WireProblem = "id" | "view" | "kind" | "value" | "bits" | "oracle";

/** A report that does not follow the wire format for its plan; `problem` names the failed check. */
export class WireFormatError extends CalmLdpError {
  override readonly name: string = "WireFormatError";
  constructor(
    message: string,
    readonly problem: WireProblem,
  ) {
    super(message);
  }
}

/** A plan received from the network that is not a CALM plan this client can run. */
export class PlanFormatError extends CalmLdpError {
  override readonly name: string = "PlanFormatError";
}

/** A collector answered with an error (`status` is the HTTP status, `reason` the collector's reason). */
export class CollectorResponseError extends CalmLdpError {
  override readonly name: string = "CollectorResponseError";
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** @internal Throws a {@link WireFormatError} "<where>: <detail>". */
export function wireError(where: string, problem: WireProblem, detail: string): never {
  throw new WireFormatError(`${where}: ${detail}`, problem);
}

/**
 * Why a reporter refused: "budget" (the report needs more eps than maxEps),
 * "round" (this round was already reported), "storage" (the state could not be
 * read or written: unavailable or full), "options" (bad reporter options).
 */
export type ReporterProblem = "budget" | "round" | "storage" | "options";

/** A persistent reporter refused; nothing was sent and its state is unchanged. */
export class ReporterError extends CalmLdpError {
  override readonly name: string = "ReporterError";
  constructor(
    message: string,
    readonly problem: ReporterProblem,
  ) {
    super(message);
  }
}
