import { createTimeOrderedReportId } from "@calm-ldp/client";
import type { Rng } from "@calm-ldp/random";

/**
 * Report ids a bench sends (`--ids`): "random" (default): version 4, the client's
 * default (`createReportId`); "time-ordered": version 7 with the clock when the
 * body is built, in the order the bodies are sent (`createTimeOrderedReportId`,
 * opt-in in the client: on a device it carries the device's clock); "round-time":
 * version 7 whose 48-bit time is the same for every report of the round (a time
 * the collector knows, e.g. when the round opened), then 74 random bits: a
 * round-based prefix that carries nothing about the device.
 */
export type BenchIdKind = "random" | "time-ordered" | "round-time";

/** The `--ids` flag (default "random"; `--random-ids`, the flag of earlier benches, is `--ids random`). Throws on any other value. */
export function reportIdKind(argv: readonly string[] = process.argv): BenchIdKind {
  const i = argv.indexOf("--ids");
  const kind = i >= 0 ? argv[i + 1] : "random";
  if (kind !== "random" && kind !== "time-ordered" && kind !== "round-time")
    throw new Error(`--ids must be random, time-ordered or round-time (got ${JSON.stringify(kind)})`);
  if (kind !== "random" && argv.includes("--random-ids"))
    throw new Error(`--random-ids and --ids ${kind} contradict each other`);
  return kind;
}

/** The id `createReport` should use for `kind` (undefined: its default, a random id); `roundTime` in ms. O(1). */
export function benchReportId(kind: BenchIdKind, rng: Rng, roundTime: number): string | undefined {
  if (kind === "time-ordered") return createTimeOrderedReportId(rng);
  if (kind === "round-time") return createTimeOrderedReportId(rng, roundTime);
  return undefined;
}

/** How a bench's header names `kind`. */
export const idKindLabel = (kind: BenchIdKind): string =>
  ({
    random: "random version-4 report ids",
    "time-ordered": "time-ordered version-7 report ids",
    "round-time": "version-7 report ids with the round's time",
  })[kind];
