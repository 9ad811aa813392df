import type { CollectorStorage, RoundCounts, RoundState, RoundTotals, StoredRound } from "../../api.js";
import { countsFromRows, roundFromRow, stateFromRow } from "../../storage-rows.js";
import { PER_VIEW_SQL, ROUND_COLUMNS, ROUND_STATE_SQL } from "./sql.js";

/**
 * The reads the DuckDB and PostgreSQL backends share: the same tables, the same
 * statements, over the backend's `read(sql, values)` (rows as arrays; a failure
 * is a `StorageError`). Each is one indexed lookup or one `GROUP BY` over a
 * round's rows. A backend extends this class and adds its writes.
 * @internal
 */
export abstract class SqlStorageReads implements Partial<CollectorStorage> {
  /** Run one read statement with positional parameters `$1...`; rows as arrays. */
  protected abstract read(sql: string, values: (string | number)[]): Promise<unknown[][]>;

  async findRound(id: string): Promise<StoredRound | undefined> {
    const rows = await this.read(`SELECT ${ROUND_COLUMNS} FROM calm_rounds WHERE round_id = $1::UUID`, [id]);
    return rows.length === 0 ? undefined : roundFromRow(rows[0]!);
  }

  async listRounds(): Promise<StoredRound[]> {
    const rows = await this.read(`SELECT ${ROUND_COLUMNS} FROM calm_rounds ORDER BY round_no`, []);
    return rows.map(roundFromRow);
  }

  async heldIds(round: StoredRound): Promise<number> {
    const rows = await this.read("SELECT count(*)::float8 FROM calm_reports WHERE round_no = $1", [round.no]);
    return Number(rows[0]![0]);
  }

  /** Rounds, open rounds, held report rows: one statement (`count(*)` of the report rows: O(rows) on PostgreSQL). */
  async roundTotals(): Promise<RoundTotals> {
    const rows = await this.read(
      `SELECT (SELECT count(*) FROM calm_rounds)::float8,
         (SELECT count(*) FROM calm_rounds AS r
          WHERE NOT EXISTS (SELECT 1 FROM calm_round_state AS s WHERE s.round_no = r.round_no))::float8,
         (SELECT count(*) FROM calm_reports)::float8`,
      [],
    );
    const [rounds, open, held] = rows[0]!.map(Number);
    return { rounds: rounds!, open: open!, held: held! };
  }

  async roundState(round: StoredRound): Promise<RoundState> {
    const rows = await this.read(ROUND_STATE_SQL, [round.no]);
    return stateFromRow(rows[0]);
  }

  async counts(round: StoredRound): Promise<RoundCounts> {
    const perViewRows = await this.read(PER_VIEW_SQL, [round.no]);
    const counterRows = await this.read("SELECT name, value::float8 FROM calm_counters WHERE round_no = $1", [
      round.no,
    ]);
    return countsFromRows(round, perViewRows, counterRows);
  }
}
