import type { Column } from "@calm-ldp/marginal-algebra";
import { type Rng, sampleWithoutReplacement } from "@calm-ldp/random";
import type { LoadedDataset, SampleOptions, SamplingInfo } from "./api.js";
import { fail } from "./errors.js";

const TWO_POW_32 = 2 ** 32;

/** n uniform row indices in [0, rows), independent (rejection sampling on bulk words: exact). O(n). */
function indicesWithReplacement(rng: Rng, rows: number, n: number): Uint32Array {
  const out = new Uint32Array(n);
  const limit = TWO_POW_32 - (TWO_POW_32 % rows);
  const words = new Uint32Array(Math.min(n, 1 << 16));
  let filled = 0;
  while (filled < n) {
    rng.fill(words);
    for (let i = 0; i < words.length && filled < n; i++) {
      const word = words[i]!;
      if (word < limit) out[filled++] = word % rows;
    }
  }
  return out;
}

function gather(column: Column, indices: Uint32Array): Column {
  const out = new (column.constructor as new (length: number) => Column)(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = column[indices[i]!]!;
  return out;
}

/**
 * Draws n users from a dataset's rows (the population) and returns them as a new dataset whose
 * `info.sampling` states how. Default (`replacement: "auto"`), as in both papers' evaluations:
 * - n = rows: every row once, in order (no randomness; the dataset is returned with `sampling.method: "all"`);
 * - n < rows: a uniformly random n-subset of the rows, without replacement, kept in row order;
 * - n > rows: n independent uniform draws of a row, with replacement (`sampling.withReplacement: true`).
 * `replacement: "always"` draws with replacement for any n; `"never"` refuses n > rows. Rows are at most
 * 2^32. O(n * d) (plus O(n log n) for the without-replacement sort).
 */
export function sampleUsers(
  dataset: LoadedDataset,
  n: number,
  rng: Rng,
  options: SampleOptions = {},
): LoadedDataset {
  const rows = dataset.store.size;
  const mode = options.replacement ?? "auto";
  if (!(Number.isSafeInteger(n) && n >= 1)) fail("sampleUsers", "n must be an integer >= 1", n);
  if (mode !== "auto" && mode !== "always" && mode !== "never") {
    fail("sampleUsers", 'replacement must be "auto", "always" or "never"', mode);
  }
  if (rows < 1 || rows > TWO_POW_32)
    fail("sampleUsers", "the dataset must have between 1 and 2^32 rows", rows);
  if (mode === "never" && n > rows)
    fail("sampleUsers", `n must be <= ${rows} (the rows) without replacement`, n);
  const withReplacement = mode === "always" || (mode === "auto" && n > rows);
  const method: SamplingInfo["method"] = withReplacement
    ? "with-replacement"
    : n === rows
      ? "all"
      : "without-replacement";
  const sampling: SamplingInfo = { population: rows, n, method, withReplacement };
  if (method === "all") return { ...dataset, info: { ...dataset.info, sampling } };
  const indices = withReplacement
    ? indicesWithReplacement(rng, rows, n)
    : sampleWithoutReplacement(rng, rows, n);
  const columns = dataset.store.columns.map((column) => gather(column, indices));
  const note = withReplacement
    ? `sampled n = ${n} users WITH replacement from ${rows} rows`
    : `sampled n = ${n} of ${rows} rows without replacement`;
  return {
    schema: dataset.schema,
    store: { schema: dataset.schema, size: n, columns },
    info: { ...dataset.info, sampling, preprocessing: [...dataset.info.preprocessing, note] },
  };
}
