import type { CalmPlan } from "@calm-ldp/calm-core";
import type { DuckDBConnection } from "@duckdb/node-api";
import type { RoundReads } from "../../api.js";
import { REPORTS_MARK } from "../../storage-rows.js";
import { perViewOfRoundsSql, type SqlRead, sqlRoundReads } from "../shared/sql-round-reads.js";
import { bitCounts } from "./support-sql.js";

/**
 * Support counts per (round, view, cell) of the rounds `list` (DuckDB): group
 * counts, per-cell rows of older files, the bits of the held report rows (up to
 * bit `width`, the widest bit view of the rounds' plans: a narrower view's rows
 * never have higher bits set, a wider view's rows hold 0) and the counts kept at
 * closing: support-sql.ts's per-round `supportSql` grouped by round too.
 * O(held report rows x width).
 */
function supportOfRoundsSql(list: string, width: number): string {
  const bits =
    width === 0
      ? ""
      : `UNION ALL SELECT round_no, view, cell, n FROM (
      SELECT round_no, view, unnest(range(${width}))::INTEGER AS cell, unnest([${bitCounts(width)}]) AS n
      FROM calm_reports WHERE round_no IN ${list} GROUP BY round_no, view) WHERE n > 0`;
  return `SELECT round_no, view, cell, sum(n)::DOUBLE FROM (
    SELECT round_no, view, cell, count AS n FROM calm_support_counts WHERE round_no IN ${list}
    UNION ALL SELECT round_no, view, cell, 1 FROM calm_support WHERE round_no IN ${list}
    ${bits}
    UNION ALL SELECT round_no, view, cell, count FROM calm_closed_counts
    WHERE round_no IN ${list} AND cell <> ${REPORTS_MARK}
  ) GROUP BY round_no, view, cell`;
}

/** What the DuckDB storage lends its batched reads. */
export interface DuckDbReadAccess {
  /** One read statement on the reader connection (reads run one at a time). */
  readonly read: SqlRead;
  /** Run `body` on the reader connection, alone (see DuckDbReader.readWith). */
  readWith<T>(body: (reader: DuckDBConnection) => Promise<T>): Promise<T>;
  /** Cells of the plan's widest view that keeps its support as bits (0: none). */
  bitWidth(plan: CalmPlan): number;
}

/**
 * The DuckDB storage's reads of many rounds (see `RoundReads`): states one
 * query, statuses three (sql-round-reads.ts), support counts two in one
 * transaction (one snapshot, as `supportCounts` reads one round).
 */
export function duckDbRoundReads(access: DuckDbReadAccess): RoundReads {
  return sqlRoundReads(access.read, (rounds, list) => {
    const width = Math.max(...rounds.map((round) => access.bitWidth(round.plan)));
    return access.readWith(async (reader) => {
      await reader.run("BEGIN TRANSACTION");
      try {
        const perView = await reader.runAndReadAll(perViewOfRoundsSql(list));
        const cells = await reader.runAndReadAll(supportOfRoundsSql(list, width));
        return { perView: perView.getRows(), cells: cells.getRows() };
      } finally {
        await reader.run("COMMIT");
      }
    });
  });
}
