import { formatDataSpec } from "@calm-ldp/datasets";
import type { PipelineRequest } from "./api.js";

/** A value the user typed that the page cannot use; `field` is the form control's id. */
export class FormValueError extends Error {
  override readonly name = "FormValueError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const round = (x: number) => Number(x.toPrecision(6));

/**
 * The eps values of the eps field: a comma-separated list (`0.5, 1, 2`) or a
 * range `from:to:count` (count values evenly spaced from `from` to `to`
 * inclusive, rounded to 6 significant digits). Every value must be a finite
 * number > 0; at most 20 values. O(length).
 */
export function parseEpsInput(text: string, field = "eps"): number[] {
  const trimmed = text.trim();
  let values: number[];
  if (trimmed.includes(":")) {
    const parts = trimmed.split(":").map((s) => s.trim());
    const [from, to, count] = parts.map(Number);
    if (
      parts.length !== 3 ||
      !Number.isFinite(from) ||
      !Number.isFinite(to) ||
      !Number.isInteger(count) ||
      count! < 2 ||
      count! > 20 ||
      !(to! > from!)
    )
      throw new FormValueError(
        field,
        `eps range must be from:to:count with from < to and 2 <= count <= 20 (got "${trimmed}")`,
      );
    values = Array.from({ length: count! }, (_, i) => round(from! + ((to! - from!) * i) / (count! - 1)));
  } else {
    const items = trimmed.split(",").map((s) => s.trim());
    if (items.some((s) => s === ""))
      throw new FormValueError(field, `eps must be a comma-separated list of numbers (got "${trimmed}")`);
    values = items.map(Number);
  }
  for (const eps of values)
    if (!(Number.isFinite(eps) && eps > 0))
      throw new FormValueError(field, `every eps must be a finite number > 0 (got "${trimmed}")`);
  if (values.length > 20) throw new FormValueError(field, `at most 20 eps values (got ${values.length})`);
  if (new Set(values).size !== values.length)
    throw new FormValueError(field, `eps values must not repeat (got "${trimmed}")`);
  return values;
}

/**
 * The attributes of the inspected marginal: comma-separated indices (`0, 2`), or
 * the first k attributes when blank. Must be k distinct integers in [0, d). O(length).
 */
export function parseInspectInput(text: string, d: number, k: number, field = "inspect"): number[] {
  const trimmed = text.trim();
  if (trimmed === "") return Array.from({ length: k }, (_, i) => i);
  const values = trimmed.split(",").map((s) => Number(s.trim()));
  const ok =
    values.length === k &&
    values.every((a) => Number.isInteger(a) && a >= 0 && a < d) &&
    new Set(values).size === k;
  if (!ok)
    throw new FormValueError(
      field,
      `the marginal must be k = ${k} distinct attribute indices between 0 and ${d - 1} (got "${trimmed}")`,
    );
  return values.sort((a, b) => a - b);
}

/** The knobs of the synthetic generators, as the form holds them. */
export type SyntheticKnobs =
  | {
      kind: "synthetic-bn";
      strength: number;
      parents: number;
      cardinality: number;
      seed: number;
      base: "random" | "uniform";
    }
  | { kind: "synthetic-iid"; p: number; cardinality: number };

/** The canonical data spec of a synthetic generator's knobs (`formatDataSpec`). iid with cardinality > 2 ignores p (uniform). */
export function syntheticSpec(knobs: SyntheticKnobs): string {
  if (knobs.kind === "synthetic-bn") {
    return formatDataSpec({
      kind: "synthetic-bn",
      strength: knobs.strength,
      parents: knobs.parents,
      cardinality: knobs.cardinality,
      base: knobs.base,
      seed: knobs.seed,
    });
  }
  return formatDataSpec(
    knobs.cardinality === 2
      ? { kind: "synthetic-iid", p: [knobs.p] }
      : { kind: "synthetic-iid", cardinality: knobs.cardinality },
  );
}

const quote = (text: string) => (/^[\w.,:=/-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`);

/**
 * The `pnpm calm-ldp run` command that computes the same numbers as a seeded page
 * run (for uploads, with the file's path in place of its name).
 */
export function cliCommand(request: PipelineRequest): string {
  const c = request.config;
  const args = [
    "pnpm calm-ldp run",
    `--data ${quote(c.data)}`,
    `--n ${c.n}`,
    `--d ${c.d}`,
    `--k ${c.k}`,
    ...(c.c !== undefined ? [`--cardinality ${c.c}`] : []),
    `--eps ${c.eps.join(",")}`,
    `--methods ${c.methods.join(",")}`,
    `--queries ${c.queries}`,
    `--reps ${c.reps}`,
    `--seed ${c.seed}`,
    `--path ${c.path ?? "counts"}`,
  ];
  return args.join(" ");
}
