import { type MarginalTable, makeNonNegative } from "@calm-ldp/marginal-algebra";
import type { AnswerPostProcessing } from "./api.js";
import { fail } from "./errors.js";

const CHOICES: readonly AnswerPostProcessing[] = ["none", "ripple", "norm-sub", "norm-cut"];

/** @internal Validate the `answers` option. */
export function checkAnswers(where: string, answers: AnswerPostProcessing | undefined): AnswerPostProcessing {
  const value = answers ?? "none";
  if (!CHOICES.includes(value)) fail(where, `answers must be one of ${CHOICES.join(", ")}`, value);
  return value;
}

/** @internal The answer as returned to the caller: raw, or made non-negative (total kept). O(cells). */
export function finishAnswer(table: MarginalTable, answers: AnswerPostProcessing): MarginalTable {
  return answers === "none" ? table : makeNonNegative(table, { method: answers });
}
