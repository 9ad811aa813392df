import type { ShardHttp } from "./http.js";

/** The cell that marks "one report" in the counts (above every view's cells). */
export const REPORT_MARK = 4_294_967_295;

const idList = (ids: Iterable<string>) => [...ids].map((id) => `'${id}'`).join(",");

/**
 * Ids of round `no` held in several rows on this shard: each id's rows are read,
 * and `calm_count_fixes` gets, per (id, view, cell) any of its rows touches, the
 * count that takes every row of the id out of `calm_cell_counts` but its first
 * (the least by view, then cells, which {@link keptRow} names), versioned by the
 * number of rows (`ReplacingMergeTree(copies)`: writing the same id again, by
 * any collector, replaces the rows, and a later count of copies wins). Exact
 * whatever the writers race: the counts read sum `calm_cell_counts` and each
 * (id, view, cell)'s latest fix. O(rows of those ids x cells).
 */
export async function writeOffCopies(shard: ShardHttp, db: string, no: number, ids: readonly string[]) {
  const rows = await shard.query(
    `SELECT toString(report_id), view, arrayStringConcat(arrayMap(c -> toString(c), cells), ',')
     FROM ${db}.calm_reports WHERE round_no = ${no} AND report_id IN (${idList(new Set(ids))})`,
  );
  const byId = new Map<string, { view: number; cells: number[] }[]>();
  for (const [id, view, cells] of rows) {
    const row = { view: Number(view), cells: cells === "" ? [] : cells!.split(",").map(Number) };
    const list = byId.get(id!);
    if (list) list.push(row);
    else byId.set(id!, [row]);
  }
  const values: string[] = [];
  for (const [id, copies] of byId) {
    if (copies.length < 2) continue;
    const fix = new Map<string, number>();
    const add = (row: { view: number; cells: number[] }, sign: number) => {
      for (const cell of [REPORT_MARK, ...row.cells]) {
        const key = `${row.view},${cell}`;
        fix.set(key, (fix.get(key) ?? 0) + sign);
      }
    };
    for (const row of copies) add(row, -1);
    add(keptRow(copies), +1);
    for (const [key, n] of fix) values.push(`(${no}, '${id}', ${key}, ${n}, ${copies.length})`);
  }
  if (values.length > 0) await shard.query(`INSERT INTO ${db}.calm_count_fixes VALUES ${values.join(",")}`);
}

/**
 * The row of an id the counts keep when it was stored several times: the least
 * by view, then by cells (compared as number lists). A full recount that keeps
 * one row per id the same way gives the same counts.
 */
export function keptRow<T extends { view: number; cells: readonly number[] }>(rows: readonly T[]): T {
  return rows.reduce((best, row) => (compareRows(row, best) < 0 ? row : best));
}

function compareRows(
  a: { view: number; cells: readonly number[] },
  b: { view: number; cells: readonly number[] },
) {
  if (a.view !== b.view) return a.view - b.view;
  for (let i = 0; i < Math.min(a.cells.length, b.cells.length); i++)
    if (a.cells[i] !== b.cells[i]) return a.cells[i]! - b.cells[i]!;
  return a.cells.length - b.cells.length;
}

/** Ids per `writeOffCopies` call of {@link sweepCopies} (~40 bytes of SQL each). */
const SWEEP_CHUNK = 10_000;

/**
 * Writes off every id of round `no` this shard holds in several rows, whether
 * or not a writer's check saw it (a collector killed between its insert and
 * its check, racing a copy its racer's check missed, and never retried): a full
 * read of the round's ids on the shard, O(rows of the round), so run once per
 * round, when no batch of it can be in flight (before its ids are dropped).
 * Ids written off already get the same write-off again (idempotent).
 */
export async function sweepCopies(shard: ShardHttp, db: string, no: number): Promise<number> {
  const ids = (
    await shard.query(
      `SELECT toString(report_id) FROM ${db}.calm_reports WHERE round_no = ${no}
       GROUP BY report_id HAVING count() > 1`,
    )
  ).map(([id]) => id!);
  for (let i = 0; i < ids.length; i += SWEEP_CHUNK)
    await writeOffCopies(shard, db, no, ids.slice(i, i + SWEEP_CHUNK));
  return ids.length;
}
