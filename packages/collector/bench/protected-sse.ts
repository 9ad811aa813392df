/**
 * Release error without attack, protected against unprotected mode, with a 95%
 * confidence interval on the ratio of mean SSE (issue 32: "SSE within 5% of
 * unprotected mode"). Not a speed benchmark; it is long, so run it under
 * `flock /tmp/calm-bench.lock npx tsx bench/protected-sse.ts [--runs 200] [--n 4096] [--m 16] [--unprotected-runs 1000]`.
 *
 * Per seeded run r: n records of d = 8 binary attributes, P(1) = 0.3
 * independently (seed r, the same records in both modes), CALM's plan for
 * (n, eps = 1, k = 2). Unprotected: each user's `createReport` with a seeded rng
 * (CALM's uniform view). Protected: each user gets a real token in this process
 * (`beginToken` blinding, the collector's `blindSign` with the round's RSA-2048
 * key, `finish` unblinding), spends it with `createTokenReport` (the token's view
 * and id), and the collector's `checkTokenReports` checks the batch (a refusal is
 * counted, not thrown). Both go through `decodeReport` into calm-core's aggregator
 * and `estimateCalm` (the `/marginals` path without HTTP and storage). SSE = sum
 * over the C(8, 2) pair marginals and their cells of (released - true)^2. Every
 * run also counts the round flags an honest round would get (view balance, unary
 * ones). Prints per-mode mean SSE with standard errors and the ratio of means
 * with a delta-method 95% interval: R (1 +- 1.96 sqrt(se_p^2/mean_p^2 + se_u^2/mean_u^2)).
 */
import { CalmAggregator, estimateCalm, planCalm } from "@calm-ldp/calm-core";
import { createReport, type WireReport } from "@calm-ldp/client";
import { beginToken, createTokenReport } from "@calm-ldp/client/tokens";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { decodeReport } from "../src/decode-report.js";
import { unaryOnesFlags } from "../src/defences/unary-ones.js";
import { viewBalanceFlags } from "../src/defences/view-balance.js";
import { blindSign } from "../src/tokens/blind-sign.js";
import { checkTokenReports } from "../src/tokens/check-reports.js";
import { TokenKeyring } from "../src/tokens/keyring.js";
import { roundTokenKeys } from "./token-keys.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const runs = arg("runs", 200);
const unprotectedRuns = arg("unprotected-runs", 5 * runs);
const n = arg("n", 4096);
const d = 8;
const schema = createSchema(Array.from({ length: d }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
const plan = planCalm({ schema, n, eps: 1, k: 2 }, { m: arg("m", 16) });
const pairs: [number, number][] = [];
for (let a = 0; a < d; a++) for (let b = a + 1; b < d; b++) pairs.push([a, b]);

function records(seed: number): number[][] {
  const rng = seededRng(1_000_000 + seed);
  return Array.from({ length: n }, () =>
    Array.from({ length: d }, () => (rng.nextUint32() / 2 ** 32 < 0.3 ? 1 : 0)),
  );
}

/** SSE of the released pair marginals and the round's flags, from wire reports. */
function release(rows: number[][], reports: readonly WireReport[]): { sse: number; flagged: boolean } {
  const aggregator = new CalmAggregator(plan);
  for (const wire of reports) aggregator.add(decodeReport(plan, wire));
  const estimate = estimateCalm(plan, aggregator);
  let sse = 0;
  for (const [a, b] of pairs) {
    const truth = [0, 0, 0, 0];
    for (const r of rows) truth[2 * r[a]! + r[b]!]! += 1 / rows.length;
    estimate.query([a, b]).cells.forEach((x, cell) => {
      sse += (x - truth[cell]!) ** 2;
    });
  }
  const perView = aggregator.views.map((v) => v.reports);
  const support = aggregator.views.map((v) => v.counts());
  const flagged = viewBalanceFlags(perView).length + unaryOnesFlags(plan, support, perView).length > 0;
  return { sse, flagged };
}

const stats = (xs: number[]) => {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean, se: sd / Math.sqrt(xs.length), sd };
};

async function main(): Promise<void> {
  const keyring = new TokenKeyring("calm-ldp");
  const unprotected: number[] = [];
  const protectedSse: number[] = [];
  let flaggedU = 0;
  let flaggedP = 0;
  let refused = 0;
  const started = performance.now();
  for (let r = 1; r <= Math.max(runs, unprotectedRuns); r++) {
    const rows = records(r);
    if (r <= unprotectedRuns) {
      const rng = seededRng(2_000_000 + r);
      const out = release(
        rows,
        rows.map((row) => createReport(plan, row, { rng })),
      );
      unprotected.push(out.sse);
      if (out.flagged) flaggedU++;
    }
    if (r <= runs) {
      const round = `00000000-0000-4000-8000-${String(r).padStart(12, "0")}`;
      const { key, clientKey } = await roundTokenKeys(keyring, round);
      const rng = seededRng(3_000_000 + r);
      const reports: WireReport[] = [];
      for (const row of rows) {
        const pending = await beginToken(clientKey);
        const signed = blindSign(key, new Uint8Array(Buffer.from(pending.request, "base64")), 0);
        const token = await pending.finish(Buffer.from(signed).toString("base64"));
        const report = await createTokenReport(plan, row, token, { rng });
        try {
          checkTokenReports(key, plan.m, [report]);
          reports.push(report);
        } catch {
          refused++;
        }
      }
      const out = release(rows, reports);
      protectedSse.push(out.sse);
      if (out.flagged) flaggedP++;
    }
    if (r % 20 === 0) console.error(`run ${r}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const u = stats(unprotected);
  const p = stats(protectedSse);
  const ratio = p.mean / u.mean;
  const rel = 1.96 * Math.sqrt((p.se / p.mean) ** 2 + (u.se / u.mean) ** 2);
  console.log(
    `d=${d} n=${n} eps=1 k=2 m=${plan.m} (${plan.views[0]!.oracle}, ${plan.views[0]!.cells} cells per view), pair-marginal SSE:`,
  );
  console.log(
    `unprotected: ${u.mean.toFixed(5)} (se ${u.se.toFixed(5)}, sd/mean ${(u.sd / u.mean).toFixed(2)}, ${unprotected.length} runs), rounds flagged ${flaggedU}`,
  );
  console.log(
    `protected:   ${p.mean.toFixed(5)} (se ${p.se.toFixed(5)}, sd/mean ${(p.sd / p.mean).toFixed(2)}, ${protectedSse.length} runs), rounds flagged ${flaggedP}, honest reports refused ${refused} of ${runs * n}`,
  );
  console.log(
    `ratio of mean SSE protected/unprotected ${ratio.toFixed(4)}, 95% CI [${(ratio * (1 - rel)).toFixed(4)}, ${(ratio * (1 + rel)).toFixed(4)}] (+-${(100 * rel).toFixed(1)}%)`,
  );
}

await main();
