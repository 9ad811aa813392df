import type pg from "pg";
import type { RoundReads, StoredRound } from "../../api.js";
import { rowsByRound } from "../../round-reads.js";
import { cellOffsets, REPORTS_MARK } from "../../storage-rows.js";
import { perViewOfRoundsSql, type SqlRead, sqlRoundReads } from "../shared/sql-round-reads.js";

/**
 * Support counts per (round, view, cell) of the rounds `list` (PostgreSQL) that
 * do not depend on the plan's layout: per-cell rows, per-view count arrays and
 * the counts kept at closing (postgres-storage.ts's SUPPORT_SQL grouped by round,
 * without the deltas).
 */
const supportOfRoundsSql = (list: string): string =>
  `SELECT round_no, view, cell, sum(n)::float8 FROM (
    SELECT round_no, view, cell, count(*) AS n FROM calm_support WHERE round_no IN ${list}
    GROUP BY round_no, view, cell
    UNION ALL SELECT round_no, view, (u.i - 1)::int, u.n
      FROM calm_support_views, unnest(counts) WITH ORDINALITY AS u(n, i) WHERE round_no IN ${list}
    UNION ALL SELECT round_no, view, cell, count FROM calm_closed_counts
      WHERE round_no IN ${list} AND cell <> ${REPORTS_MARK}
  ) AS t GROUP BY round_no, view, cell`;

/** Per (round, flat cell index) of the rounds `list`: their support deltas summed (mapped to cells here). */
const deltasOfRoundsSql = (list: string): string =>
  `SELECT round_no, (u.i - 1)::int, sum(u.n)::float8
   FROM calm_support_deltas, unnest(counts) WITH ORDINALITY AS u(n, i)
   WHERE round_no IN ${list} GROUP BY round_no, u.i`;

/** What the PostgreSQL storage lends its batched reads. */
export interface PostgresReadAccess {
  /** One read statement on a pooled connection. */
  readonly read: SqlRead;
  /** Run `body` in one read-only REPEATABLE READ transaction (one snapshot). */
  snapshot<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

/**
 * The PostgreSQL storage's reads of many rounds (see `RoundReads`): states one
 * query, statuses three (sql-round-reads.ts), support counts three in one
 * snapshot (reports per view, the layout-free counts, the deltas by flat index).
 */
export function postgresRoundReads(access: PostgresReadAccess): RoundReads {
  const rows = (client: pg.PoolClient, text: string) =>
    client.query({ text, rowMode: "array" }).then((result) => result.rows as unknown[][]);
  return sqlRoundReads(access.read, (_, list) =>
    access.snapshot(async (client) => {
      const perView = await rows(client, perViewOfRoundsSql(list));
      const cells = await rows(client, supportOfRoundsSql(list));
      const deltas = rowsByRound(await rows(client, deltasOfRoundsSql(list)));
      return {
        perView,
        cells,
        complete: (round: StoredRound, support: unknown[][]) =>
          withDeltas(round, support, deltas.get(round.no) ?? []),
      };
    }),
  );
}

/**
 * `[view, cell, n]` rows plus the round's deltas `[flat index, n]` (flat: the
 * plan's cells view after view, `cellOffsets`), summed per (view, cell); a delta
 * past the plan's cells is ignored, as SUPPORT_SQL's join ignores it. O(rows + m).
 */
function withDeltas(round: StoredRound, rows: unknown[][], deltas: unknown[][]): unknown[][] {
  if (deltas.length === 0) return rows;
  const offsets = cellOffsets(round.plan);
  const sums = new Map<string, [number, number, number]>();
  const add = (view: number, cell: number, n: number) => {
    const key = `${view}:${cell}`;
    const entry = sums.get(key);
    if (entry) entry[2] += n;
    else sums.set(key, [view, cell, n]);
  };
  for (const [view, cell, n] of rows) add(Number(view), Number(cell), Number(n));
  for (const [index, n] of deltas) {
    const i = Number(index);
    if (!(i >= 0 && i < offsets[offsets.length - 1]!)) continue;
    let view = 0;
    while (offsets[view + 1]! <= i) view++;
    add(view, i - offsets[view]!, Number(n));
  }
  return [...sums.values()];
}
