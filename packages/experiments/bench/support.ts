/**
 * What the experiments benches share: `--name value` arguments, the population
 * they sample from (`--data adult|nltcs|msnbc|<spec> --d --c --root`), and one
 * repetition's users, queries and true answers, drawn from seeds derived from
 * (seed, rep) so that every bench sees the same sample for the same (seed, rep).
 */
import { type LoadedDataset, parseDataSpec, sampleUsers } from "@calm-ldp/datasets";
import { loadDataset } from "@calm-ldp/datasets/node";
import { contingencyTable, randomQueries } from "@calm-ldp/marginal-algebra";
import { deriveSeed, repetitionSeed, seededRng } from "@calm-ldp/random";

/** The value after `--name` on the command line, or `fallback`. */
export function argument(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}

/**
 * The arguments the calm-plus benches share: `--k` (default 3), `--n` (2^16),
 * `--eps` (comma-separated; default `eps`), `--reps` (5), `--seed` (1) and
 * `--queries` (50).
 */
export function calmPlusArguments(eps: string) {
  return {
    k: Number(argument("k", "3")),
    n: Number(argument("n", String(2 ** 16))),
    epsList: argument("eps", eps).split(",").map(Number),
    reps: Number(argument("reps", "5")),
    seed: Number(argument("seed", "1")),
    queries: Number(argument("queries", "50")),
  };
}

/** A population read from `--data` (a short name or a data spec), cut to `--d` attributes and `--c` categories. */
export interface BenchPopulation {
  readonly dataName: string;
  readonly d: number;
  /** `--c` as given ("" when absent: the loader's default). */
  readonly c: string;
  readonly population: LoadedDataset;
  /** "nltcs d=16 c=3" for the benches' headers. */
  readonly label: string;
}

/** Loads `--data` (default `defaults.data`) with `--d` (default `defaults.d`) and `--c`, from `--root`. */
export async function benchPopulation(defaults: { data: string; d: number }): Promise<BenchPopulation> {
  const root = argument("root", "/work/shared/datasets");
  const dataName = argument("data", defaults.data);
  const d = Number(argument("d", String(defaults.d)));
  const c = argument("c", "");
  const specs: Record<string, string> = {
    adult: `adult:${root}/adult`,
    nltcs: `nltcs:${root}/nltcs/nltcs.csv`,
    msnbc: `msnbc:${root}/msnbc/msnbc990928.seq.gz`,
  };
  const population = await loadDataset(parseDataSpec(specs[dataName] ?? dataName), {
    d,
    ...(c ? { c: Number(c) } : {}),
  });
  return { dataName, d, c, population, label: `${dataName} d=${d}${c ? ` c=${c}` : ""}` };
}

/**
 * Repetition `rep`'s users (n sampled from the population), `queries` random k-way
 * queries over attributes 0..d-1 and their true cells.
 */
export function repetitionSample(
  population: LoadedDataset,
  options: { n: number; d: number; k: number; queries: number; seed: number; rep: number },
) {
  const seed = repetitionSeed(options.seed, options.rep);
  const store = sampleUsers(population, options.n, seededRng(deriveSeed(seed, 1))).store;
  const qs = randomQueries(seededRng(deriveSeed(seed, 2)), options.d, options.k, options.queries);
  const truths = qs.map((q) => contingencyTable(store, q).cells);
  return { store, qs, truths };
}

/** The seed of repetition `rep`'s simulated reports at `eps`. */
export function reportsSeed(seed: number, rep: number, eps: number): number {
  return deriveSeed(repetitionSeed(seed, rep), 3, Math.round(eps * 1000));
}
