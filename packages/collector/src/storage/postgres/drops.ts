import type { AcceptedReport } from "../../api.js";
import { binaryInt4Array, binaryUuidArray } from "./arrays.js";
import type { StoreJob } from "./deltas.js";

/** One dropped report of a group: its round and the reason it was dropped for. */
export type DropEntry = { round: number; reason: string; report: AcceptedReport };

/**
 * The CTEs that count a group's dropped reports exactly once per report id,
 * with parameters `$p..$(p+3)` (round, id, view, reason of each dropped report)
 * and the CTE `closed` (rounds skipped): `dropins` keeps each id not kept yet in
 * `calm_dropped_reports` (ON CONFLICT DO NOTHING: a re-sent dropped report adds
 * nothing) and returns the new ones, `dropcount` adds them to the counters
 * `dropped:<reason>:<view>`. Ids sorted by (round, id), so concurrent
 * transactions take keys in one order. O(dropped reports) rows.
 */
export const dropsCte = (
  p: number,
) => `dropins AS (INSERT INTO calm_dropped_reports (round_no, report_id, view, reason)
    SELECT no, id, view, reason FROM unnest($${p}::int[], $${p + 1}::uuid[], $${p + 2}::int[], $${p + 3}::text[])
      AS t(no, id, view, reason)
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])) ORDER BY no, id
    ON CONFLICT DO NOTHING RETURNING round_no, view, reason),
  dropcount AS (INSERT INTO calm_counters (round_no, name, value)
    SELECT round_no, 'dropped:' || reason || ':' || view, count(*) FROM dropins GROUP BY round_no, reason, view
    ON CONFLICT (round_no, name) DO UPDATE SET value = calm_counters.value + excluded.value)`;

/**
 * The dropped reports of a group's jobs, de-duplicated per round in submission
 * order (a later copy of an id within the group is a duplicate, as for stored
 * reports), sorted by (round, id); and per round how many were submitted (every
 * copy: those not counted as dropped count as duplicates). O(d log d) for d
 * dropped reports.
 */
export function groupDrops(jobs: readonly StoreJob[]): {
  entries: DropEntry[];
  submitted: Map<number, number>;
} {
  const entries: DropEntry[] = [];
  const submitted = new Map<number, number>();
  const seen = new Map<number, Set<string>>();
  for (const job of jobs) {
    if (!job.dropped || job.dropped.reports.length === 0) continue;
    const no = job.round.no;
    submitted.set(no, (submitted.get(no) ?? 0) + job.dropped.reports.length);
    let ids = seen.get(no);
    if (ids === undefined) seen.set(no, (ids = new Set()));
    for (const report of job.dropped.reports) {
      if (ids.has(report.id)) continue;
      ids.add(report.id);
      entries.push({ round: no, reason: job.dropped.reason, report });
    }
  }
  entries.sort(
    (a, b) => a.round - b.round || (a.report.id < b.report.id ? -1 : a.report.id > b.report.id ? 1 : 0),
  );
  return { entries, submitted };
}

/** The parameters of {@link dropsCte}: round, id (binary uuid[]), view, reason of each entry. O(entries). */
export function dropValues(entries: readonly DropEntry[]): unknown[] {
  return [
    binaryInt4Array(entries, (e) => e.round),
    binaryUuidArray(entries),
    binaryInt4Array(entries, (e) => e.report.view),
    entries.map((e) => e.reason),
  ];
}
