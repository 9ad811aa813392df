/**
 * Type I error and power of the noise-aware chi-square test against
 * the plug-in test, for CALM, InpHT and MargPS releases.
 * Type I: attributes 0 and 1 of `independentPairStore` are exactly independent.
 * Power: the same population with a fraction --dependence of records copying
 * attribute 0 into attribute 1.
 *
 * Run (from packages/analyses):
 *   npx tsx bench/noise-aware-chi-square.ts \
 *     [--runs 1000] [--n 32768] [--d 6] [--eps 0.5,1,2] [--methods calm,inpht,margps] [--dependence 0,0.05,0.1] [--replicates 500]
 */
import { independentPairStore, rejectionRates } from "../src/noise-aware-calibration.js";

function argument(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const runs = Number(argument("runs", "1000"));
const n = Number(argument("n", "32768"));
const d = Number(argument("d", "6"));
const eps = argument("eps", "0.5,1,2").split(",").map(Number);
const methods = argument("methods", "calm,inpht,margps").split(",");
const dependences = argument("dependence", "0,0.05,0.1").split(",").map(Number);
const replicates = Number(argument("replicates", "500"));

console.log(`# n=${n} d=${d} runs=${runs} B=${replicates} alpha=0.05; pair (0, 1)`);
for (const dependence of dependences) {
  const store = independentPairStore(n, d, 18, dependence);
  console.log(`## dependence ${dependence} (${dependence === 0 ? "type I error" : "power"})`);
  for (const row of rejectionRates({ store, pair: [0, 1], methods, eps, runs, seed: 18, replicates }))
    console.log(
      `${row.method} eps=${row.eps}: noise-aware ${row.noiseAware.toFixed(3)}  plug-in ${row.plugIn.toFixed(3)}  (${row.runs} runs, ${row.seconds.toFixed(1)} s)`,
    );
}
