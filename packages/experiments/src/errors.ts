/** An experiment configuration outside its domain (no methods, reps < 1, unknown method, ...). */
export class InvalidExperimentError extends RangeError {
  override readonly name = "InvalidExperimentError";
}

/** @internal */
export function invalid(where: string, condition: string, got: unknown): never {
  throw new InvalidExperimentError(
    `${where}: ${condition} (got ${typeof got === "string" ? JSON.stringify(got) : (JSON.stringify(got) ?? String(got))})`,
  );
}
