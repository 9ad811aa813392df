/**
 * The in-memory id set of the DuckDB storage (`UuidSet`): `--ids` (default
 * 2,000,000) seeded random ids added to a new set, as a round's first reports
 * fill it (every doubling of the table included), then looked up again, `--reps`
 * times (default 5). Prints ids, table bytes, and adds and lookups per second:
 * the first repetition (code not yet optimised by the JIT, as a server's first
 * growths run) and the best one.
 * Run: `npx tsx bench/uuid-set.ts [--ids 2000000] [--reps 5]`.
 */
import { seededRng } from "@calm-ldp/random";
import { UuidSet } from "../src/uuid-set.js";

const argument = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = argument("ids", 2_000_000);
const reps = argument("reps", 5);
if (!Number.isInteger(n) || n < 1) throw new Error(`--ids must be a positive integer (got ${n})`);
if (!Number.isInteger(reps) || reps < 1) throw new Error(`--reps must be a positive integer (got ${reps})`);

const rng = seededRng(1);
const words = new Uint32Array(4 * n);
for (let i = 0; i < words.length; i++) words[i] = rng.nextUint32();

let best = { add: Number.POSITIVE_INFINITY, has: Number.POSITIVE_INFINITY };
let first = { add: 0, has: 0 };
let bytes = 0;
let found = 0;
for (let rep = 0; rep < reps; rep++) {
  const set = new UuidSet();
  let started = performance.now();
  for (let i = 0; i < n; i++) set.add(words, 4 * i);
  const add = performance.now() - started;
  started = performance.now();
  found = 0;
  for (let i = 0; i < n; i++) if (set.has(words, 4 * i)) found++;
  const has = performance.now() - started;
  if (rep === 0) first = { add, has };
  best = { add: Math.min(best.add, add), has: Math.min(best.has, has) };
  bytes = set.bytes;
  if (set.size !== n || found !== n) throw new Error(`set holds ${set.size} of ${n} ids, found ${found}`);
}
const rate = (ms: number) => ((n / ms) * 1e3).toFixed(0);
console.log(
  `UuidSet: ${n} ids, table ${(bytes / 2 ** 20).toFixed(0)} MiB (${(bytes / n).toFixed(1)} bytes per id); ` +
    `add (growth included) ${rate(first.add)} ids/s first, ${rate(best.add)} best of ${reps}; ` +
    `has ${rate(first.has)} ids/s first, ${rate(best.has)} best`,
);
