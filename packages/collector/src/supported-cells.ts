import type { FrequencyOracle } from "@calm-ldp/frequency-oracles";

/**
 * The cells of a view that one (validated) oracle report supports, ascending: the
 * value itself for a GRR report (a number), the set bits of a bitset report (a
 * Uint32Array, OUE/SUE). Any other report shape falls back to asking the oracle
 * for every cell. A report supports x when it counts toward C(x)
 * (../../../docs/algorithms.md#frequency-oracles), so counting rows (view, x) in SQL gives C(x).
 * O(1) for GRR, O(words + set bits) for bitsets, O(D) otherwise.
 */
export function supportedCells(oracle: FrequencyOracle, report: unknown): number[] {
  if (typeof report === "number") return [report];
  if (report instanceof Uint32Array) {
    const cells: number[] = [];
    for (let w = 0; w < report.length; w++) {
      let bits = report[w]!;
      while (bits !== 0) {
        const lowest = bits & -bits;
        cells.push(32 * w + 31 - Math.clz32(lowest));
        bits ^= lowest;
      }
    }
    return cells;
  }
  const cells: number[] = [];
  for (let x = 0; x < oracle.domain; x++) if (oracle.supports(report, x)) cells.push(x);
  return cells;
}
