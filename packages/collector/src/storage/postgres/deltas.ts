import type { AcceptedReport, DroppedBatch, StoredRound } from "../../api.js";
import { binaryArrayBuffer, INT4_OID } from "./arrays.js";
import { type CellLayout, cellLayout } from "./layout.js";

/** One batch submitted to a group commit: the reports to store, and those dropped (counted, not stored). */
export type StoreJob = { round: StoredRound; reports: readonly AcceptedReport[]; dropped?: DroppedBatch };

/** One report of a group: its batch (index in the group) and round. */
export type Entry = { job: number; round: number; report: AcceptedReport };

/**
 * The insert of a group's support deltas (a CTE of the fresh group's statement
 * and of the careful path) with parameters from `$p`: one `calm_support_deltas` row per
 * round, its counts the slice `$(p+1)[first:last]` of the flat counts for each
 * (round, first, last) of `$p, $(p+2), $(p+3)`; closed rounds (CTE `closed`)
 * are skipped. An append, no index: the per-view rows are added to later by
 * `foldDeltas`.
 */
export const deltasCte = (p: number) => `deltas AS (INSERT INTO calm_support_deltas (round_no, counts)
    SELECT no, ($${p + 1}::int[])[first:last] FROM unnest($${p}::int[], $${p + 2}::int[], $${p + 3}::int[]) AS t(no, first, last)
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])))`;

/**
 * The support deltas that `entries` (of `jobs`' rounds) add, one per round with
 * entries, in round order: `counts` one binary `int4[]` of the rounds' flat
 * counts ({@link cellLayout}) one after the other, round `rounds[i]`'s at the
 * 1-based slice `first[i]..last[i]`. O(entries x cells + cells of the plans).
 */
export function supportDeltas(
  jobs: readonly StoreJob[],
  entries: readonly Entry[],
): { rounds: number[]; counts: Buffer; first: number[]; last: number[] } {
  type Tally = { layout: CellLayout; counts: Int32Array };
  const tallies = new Map<number, Tally>();
  let last: { no: number; tally: Tally } | undefined;
  for (const entry of entries) {
    let tally = last?.no === entry.round ? last.tally : tallies.get(entry.round);
    if (tally === undefined) {
      const layout = cellLayout(jobs[entry.job]!.round.plan);
      tally = { layout, counts: new Int32Array(layout.total) };
      tallies.set(entry.round, tally);
    }
    last = { no: entry.round, tally };
    const offset = tally.layout.offsets[entry.report.view]!;
    for (const cell of entry.report.cells) tally.counts[offset + cell]!++;
  }
  const ordered = [...tallies].sort((a, b) => a[0] - b[0]);
  const rounds: number[] = [];
  const first: number[] = [];
  const lasts: number[] = [];
  let total = 0;
  for (const [no, tally] of ordered) {
    rounds.push(no);
    first.push(total + 1);
    total += tally.counts.length;
    lasts.push(total);
  }
  const buffer = binaryArrayBuffer(total, INT4_OID, 4);
  const data = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength); // ~10x Buffer.writeInt32BE
  let at = 20;
  for (const [, tally] of ordered) {
    const counts = tally.counts;
    for (let i = 0; i < counts.length; i++, at += 8) {
      data.setInt32(at, 4);
      data.setInt32(at + 4, counts[i]!);
    }
  }
  return { rounds, counts: buffer, first, last: lasts };
}
