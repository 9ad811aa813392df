/** Options of {@link coveringDesign}, {@link coverDesignSize} and {@link describeCoveringDesign}. */
export interface CoveringDesignOptions {
  /**
   * Seed of the greedy construction and the annealing (any safe integer >= 0).
   * Default {@link DEFAULT_COVERING_SEED}: the same call always returns the same blocks.
   */
  seed?: number;
  /**
   * Annealing moves after the constructions; 0 keeps the best construction. Default:
   * min(200,000, 5 10^7 / the estimated operations of one move), i.e. 200,000 for
   * small blocks and fewer when k and t are large, so a first call stays around a
   * second at most. The result is a deterministic function of (v, k, t, seed, iterations).
   */
  iterations?: number;
  /**
   * Optional wall-clock cap on the annealing, in milliseconds. The search stops at
   * whichever comes first, iterations or time; with a time cap the result depends on
   * the machine's speed, so CALM plans should not set it.
   */
  timeLimitMs?: number;
}

/** A covering design with its provenance, from {@link describeCoveringDesign}. */
export interface CoveringDesignResult {
  readonly v: number;
  readonly k: number;
  readonly t: number;
  /** The blocks: k-subsets of 0..v-1, each ascending, sorted lexicographically. */
  readonly blocks: number[][];
  /** Number of blocks. */
  readonly size: number;
  /** The Schönheim lower bound L(v, k, t). */
  readonly lowerBound: number;
  /** true when size equals a proven lower bound (the Schönheim bound or the elementary t = 1, k = t, k >= v - 1 cases): an optimum. */
  readonly optimal: boolean;
  /** How the blocks were obtained, e.g. "lines of PG(2,3)" or "greedy + annealing". */
  readonly construction: string;
}
