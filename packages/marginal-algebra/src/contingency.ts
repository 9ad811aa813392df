import type { CellUnit, MarginalTable, RecordStore } from "./api.js";
import { sortedAttributes } from "./attribute-set.js";
import { fail } from "./errors.js";
import { createTable } from "./table.js";

const CHUNK = 4096;

/**
 * The exact marginal of a record store over `attributes` (any order; the table is
 * over them ascending): cell counts `#{r : record r projects to the cell}`, or,
 * with unit "fraction" (the default), those counts divided by `store.size`.
 *
 * One pass over the k touched columns, in cache-sized chunks: each chunk's cell
 * indices are built column by column (`idx = idx * c + column[r]`) and then
 * tallied. O(n k + |V_A|) time, O(|V_A|) memory beyond one 16 KiB buffer.
 */
export function contingencyTable(
  store: RecordStore,
  attributes: readonly number[],
  unit: CellUnit = "fraction",
): MarginalTable {
  const set = sortedAttributes("contingencyTable", attributes);
  const d = store.columns.length;
  const cardinalities = set.map((a) => {
    if (a >= d) fail("contingencyTable", `attribute indices must be in [0, ${d})`, a);
    return store.schema.attributes[a]!.labels.length;
  });
  if (unit !== "fraction" && unit !== "count")
    fail("contingencyTable", 'unit must be "fraction" or "count"', unit);
  const table = createTable(set, cardinalities, { unit });
  const cells = table.cells;
  const n = store.size;
  const k = set.length;
  if (k === 0) {
    cells[0] = n;
  } else {
    const columns = set.map((a) => store.columns[a]!);
    const index = new Uint32Array(CHUNK);
    for (let start = 0; start < n; start += CHUNK) {
      const length = Math.min(CHUNK, n - start);
      const first = columns[0]!;
      for (let r = 0; r < length; r++) index[r] = first[start + r]!;
      for (let j = 1; j < k; j++) {
        const column = columns[j]!;
        const c = cardinalities[j]!;
        for (let r = 0; r < length; r++) index[r] = index[r]! * c + column[start + r]!;
      }
      for (let r = 0; r < length; r++) cells[index[r]!]++;
    }
  }
  if (unit === "fraction" && n > 0) {
    for (let u = 0; u < cells.length; u++) cells[u] /= n;
  }
  return table;
}
