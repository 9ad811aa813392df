import type { CalmPlan } from "@calm-ldp/calm-core";
import type pg from "pg";
import type { StoredRound } from "../../api.js";
import { StorageError } from "../../errors.js";
import { intArray } from "./arrays.js";
import { transaction } from "./connection.js";
import { cellLayout } from "./layout.js";

/** Fold a writer's support deltas into the per-view counts after this many of its groups. */
const FOLD_EVERY = 64;

/** The `DO UPDATE` of a view's counts row: add the new counts cell by cell. */
const ADD_COUNTS =
  "counts = ARRAY(SELECT a + b FROM unnest(calm_support_views.counts, excluded.counts) AS u(a, b))";

/**
 * Add support counts (`$2`: per view, a text literal of its cells' counts) to
 * round `$1`'s rows of views `$3` in slot `$4`, in view order (concurrent
 * writers lock the rows in one order).
 */
const ADD_VIEWS_SQL = `INSERT INTO calm_support_views (round_no, view, slot, counts)
  SELECT $1, view, $4, counts::bigint[] FROM unnest($3::int[], $2::text[]) AS t(view, counts) ORDER BY view
  ON CONFLICT (round_no, view, slot) DO UPDATE SET ${ADD_COUNTS}`;

/** Column parsers that keep every value as the text the server sent. */
const TEXT_VALUES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/**
 * Fold round `no`'s support deltas into its per-view counts in `slot`, inside
 * the caller's transaction: `DELETE ... RETURNING` the deltas (`int4[]` as
 * text: the driver decodes binary results as UTF-8 text, which mangles them),
 * sum them here, add the sums to the views' rows ({@link ADD_VIEWS_SQL}).
 * Exactly the deleted deltas are added, once: a delta another transaction
 * deletes meanwhile is not returned here, and a rollback keeps both as they
 * were. O(deltas x cells of the plan) in JavaScript, three statements. Exported
 * for the tests (the package exports only `openPostgresStorage`).
 */
export async function foldDeltas(
  client: pg.PoolClient,
  no: number,
  plan: CalmPlan,
  slot: number,
): Promise<void> {
  const layout = cellLayout(plan);
  // The round's deltas through the index, not a bitmap scan: every fold deletes what it reads, and
  // until autovacuum runs those rows stay in the table and in the index under the same round_no.
  // An index scan marks the entries of rows dead to every transaction as such and later scans skip
  // them; a bitmap scan would visit every page of the round's deleted deltas at every fold. Sequential
  // scans are off too: once statistics say every row is this round's (one open round, after autoanalyze),
  // the planner would pick one and read every dead page as well.
  await client.query("SET LOCAL enable_bitmapscan = off; SET LOCAL enable_seqscan = off");
  const gone = await client.query({
    text: "DELETE FROM calm_support_deltas WHERE round_no = $1 RETURNING counts",
    values: [no],
    rowMode: "array",
    types: TEXT_VALUES,
  });
  if (gone.rows.length === 0) return;
  const sums = new Float64Array(layout.total);
  for (const [counts] of gone.rows) addIntArrayText(counts as string, sums);
  const views: number[] = [];
  const literals: string[] = [];
  plan.views.forEach((view, v) => {
    const cells = sums.subarray(layout.offsets[v]!, layout.offsets[v]! + view.cells);
    if (cells.every((x) => x === 0)) return;
    views.push(v);
    literals.push(`"{${cells.join(",")}}"`);
  });
  if (views.length > 0)
    await client.query(ADD_VIEWS_SQL, [no, `{${literals.join(",")}}`, intArray(views), slot]);
}

/**
 * Add the elements of a one-dimensional array of non-negative integers in
 * PostgreSQL's text form (`{3,0,12}`) to `sums` element by element;
 * `StorageError` if it is not that or its length is not `sums.length`. O(text length).
 */
function addIntArrayText(text: string, sums: Float64Array): void {
  const fail = () => new StorageError(`a stored support delta is not an int4[] of ${sums.length} counts`);
  const end = text.length - 1;
  if (text.charCodeAt(0) !== 123 || text.charCodeAt(end) !== 125) throw fail(); // { and }
  let i = 0;
  let value = 0;
  let digits = 0;
  for (let at = 1; at <= end; at++) {
    const c = text.charCodeAt(at);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
    } else if ((c === 44 || at === end) && digits > 0 && i < sums.length) {
      sums[i++]! += value; // , or the closing }
      value = 0;
      digits = 0;
    } else throw fail();
  }
  if (i !== sums.length) throw fail();
}

/**
 * The folds of one storage instance: the rounds it wrote support deltas of
 * since its last fold, folded into their per-view counts in the instance's
 * `slot` every {@link FOLD_EVERY} groups (in the background, one fold at a
 * time: they share the slot), and at close.
 */
export class DeltaFolder {
  /** Rounds this instance wrote support deltas of since its last fold. */
  readonly #unfolded = new Map<number, StoredRound>();
  #groupsSinceFold = 0;
  /** The fold running now (one at a time per instance: they share the slot). */
  #folding: Promise<void> | undefined;

  constructor(
    readonly pool: pg.Pool,
    readonly slot: number,
  ) {}

  /**
   * After a group committed: note the open `rounds` it wrote support deltas
   * of, and every {@link FOLD_EVERY} groups start a fold of them (in the
   * background, one at a time; a failed fold leaves its deltas, which every
   * read counts, to the next one).
   */
  wrote(rounds: Iterable<StoredRound>): void {
    for (const round of rounds) this.#unfolded.set(round.no, round);
    if (++this.#groupsSinceFold >= FOLD_EVERY && this.#folding === undefined)
      this.#folding = this.fold()
        .catch(() => undefined)
        .finally(() => {
          this.#folding = undefined;
        });
  }

  /** The background fold running now, if any, settled. */
  async settled(): Promise<void> {
    await this.#folding;
  }

  /**
   * Fold the support deltas of the rounds this instance wrote deltas of into
   * their per-view counts ({@link foldDeltas}, one transaction per round, slot of this
   * instance). Rejects on the first failure (the rounds not folded stay noted).
   */
  async fold(): Promise<void> {
    this.#groupsSinceFold = 0;
    for (const round of [...this.#unfolded.values()]) {
      this.#unfolded.delete(round.no);
      try {
        await transaction(this.pool, (client) => foldDeltas(client, round.no, round.plan, this.slot));
      } catch (error) {
        this.#unfolded.set(round.no, round);
        throw error;
      }
    }
  }
}
