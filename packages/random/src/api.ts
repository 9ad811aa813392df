/**
 * A source of uniformly distributed 32-bit words. Everything random in calm-ldp
 * draws from an `Rng`: clients default to {@link cryptoRng}, simulations and tests
 * pass a {@link seededRng}.
 *
 * Implementations provide the three methods below; the samplers in this package
 * (uniformInt, bernoulli, binomial, ...) build on them, never on the global non-cryptographic generator.
 */
export interface Rng {
  /** Next uniform integer in [0, 2^32). */
  nextUint32(): number;
  /** Fill `out` with uniform integers in [0, 2^32) and return it. O(out.length). */
  fill(out: Uint32Array): Uint32Array;
  /** Uniform double in [0, 1) with 53 random bits: `(a * 2^21 + b) / 2^53` from two words. */
  nextFloat(): number;
}

/** A reproducible generator: its whole future is fixed by its seed and stream. */
export interface SeededRng extends Rng {
  /** The seed this generator was created from. */
  readonly seed: number;
  /** The stream index this generator was created with. */
  readonly stream: number;
  /**
   * A new generator for stream `stream` of the same seed. Streams are derived by
   * hashing (seed, stream) through SplitMix64 into the 128-bit state, the same idea
   * as numpy's SeedSequence: distinct streams are independent for all practical
   * purposes (overlap probability ~ draws^2 / 2^128).
   */
  fork(stream: number): SeededRng;
  /** An independent copy in the current state (drawing from one does not move the other). */
  clone(): SeededRng;
  /**
   * Advance by 2^64 draws (the xoshiro128** jump polynomial). Calling `jump()` j
   * times gives non-overlapping subsequences of length 2^64: the guaranteed way to
   * split one stream for parallel work.
   */
  jump(): void;
}
