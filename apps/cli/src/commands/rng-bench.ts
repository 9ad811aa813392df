import { binomial, cryptoRng, type Rng, seededRng } from "@calm-ldp/random";
import type { Command } from "../cli-kit.js";

interface RngBenchOptions {
  words: number;
  draws: number;
  seed: number;
}

/** Best-of-`repeats` throughput of `work(size)` in items per second. */
function throughput(
  size: number,
  repeats: number,
  work: (size: number) => number,
): { perSecond: number; checksum: number } {
  let best = Number.POSITIVE_INFINITY;
  let checksum = 0;
  for (let r = 0; r < repeats; r++) {
    const start = process.hrtime.bigint();
    checksum += work(size);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    best = Math.min(best, seconds);
  }
  return { perSecond: size / best, checksum };
}

function bulkWords(rng: Rng, buffer: Uint32Array) {
  return (size: number): number => {
    let sum = 0;
    for (let done = 0; done < size; done += buffer.length) {
      rng.fill(buffer);
      sum += buffer[0]!;
    }
    return sum;
  };
}

export const rngBenchCommand: Command = {
  name: "rng-bench",
  summary:
    "Measure random-source throughput (bulk uint32 words) and binomial draws per second, here and now.",
  options: {
    words: { type: "integer", description: "uint32 words per measurement", default: 1 << 26, min: 1 << 16 },
    draws: { type: "integer", description: "binomial draws per measurement", default: 1_000_000, min: 1000 },
    seed: { type: "integer", description: "seed of the seeded generator", default: 1, min: 0 },
  },
  run(raw) {
    const options = raw as unknown as RngBenchOptions;
    const buffer = new Uint32Array(1 << 16);
    const crypto = throughput(options.words, 3, bulkWords(cryptoRng(), buffer));
    const seeded = throughput(options.words, 3, bulkWords(seededRng(options.seed), buffer));
    const rng = seededRng(options.seed, 1);
    const draw = (n: number, p: number) => (size: number) => {
      let sum = 0;
      for (let i = 0; i < size; i++) sum += binomial(rng, n, p);
      return sum;
    };
    const small = throughput(options.draws, 3, draw(20, 0.3));
    const large = throughput(options.draws, 3, draw(1_000_000, 0.3));
    return {
      cryptoUint32PerSecond: Math.round(crypto.perSecond),
      seededUint32PerSecond: Math.round(seeded.perSecond),
      binomialPerSecond: Math.round(Math.min(small.perSecond, large.perSecond)),
      binomialSmallNPerSecond: Math.round(small.perSecond),
      binomialLargeNPerSecond: Math.round(large.perSecond),
      words: options.words,
      draws: options.draws,
      note: "binomialPerSecond is the slower of n = 20, p = 0.3 (inversion) and n = 1e6, p = 0.3 (BTPE)",
      checksum: (crypto.checksum + seeded.checksum + small.checksum + large.checksum) % 2 ** 32,
    };
  },
};
