/**
 * Protected-mode costs (Privacy Pass tokens, src/tokens/): run under
 * `flock /tmp/calm-bench.lock npx tsx bench/tokens.ts [--reports 5000] [--runs 2]`.
 * 1. Issuance per token, by side: client blinding (`beginToken`: PSS encoding,
 *    r^e, r^-1), issuer signing (`blindSign`: raw RSA-2048 through OpenSSL) and
 *    client finalization (unblind + check), medians over 200 tokens in this process;
 *    and redemption: the collector's check of one report (`checkTokenReports`:
 *    signature, view and id), median over the same tokens.
 * 2. Ingest over loopback HTTP, DuckDB in a temporary directory: `--reports`
 *    reports of d = 8 binary attributes (k = 2, eps = 1) in batches of 100, 8 in
 *    flight, bodies (and, protected, their tokens) made before the clock starts;
 *    unprotected and protected rounds alternate `--runs` times; prints reports/s of
 *    each run, the medians and their ratio.
 * 3. The issuer's quota ledger per token request (`take` of 1 token, budget 1,
 *    a fresh identity each time, one window): in memory and on disk
 *    (`DirectoryQuotaLedger` in a temporary directory: mkdir + one exclusive create),
 *    medians over 2000 requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReport, readPlan, sendReports, type WireReport } from "@calm-ldp/client";
import { beginToken, createTokenReport, fetchTokenKey, obtainTokens } from "@calm-ldp/client/tokens";
import { seededRng } from "@calm-ldp/random";
import { openDuckDbStorage } from "../src/duckdb.js";
import { startCollector, testAttester } from "../src/index.js";
import { blindSign } from "../src/tokens/blind-sign.js";
import { checkTokenReports } from "../src/tokens/check-reports.js";
import { TokenKeyring } from "../src/tokens/keyring.js";
import { DirectoryQuotaLedger, QuotaLedger, type QuotaStore } from "../src/tokens/ledger.js";
import { roundTokenKeys } from "./token-keys.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number) => `${x.toFixed(3)} ms`;

async function perToken(): Promise<void> {
  const keyring = new TokenKeyring("calm-ldp");
  const round = "00000000-0000-4000-8000-000000000001";
  const { key, clientKey } = await roundTokenKeys(keyring, round);
  const times = {
    blind: [] as number[],
    sign: [] as number[],
    finish: [] as number[],
    redeem: [] as number[],
  };
  for (let i = 0; i < 200; i++) {
    let t = performance.now();
    const pending = await beginToken(clientKey);
    times.blind.push(performance.now() - t);
    t = performance.now();
    const signed = blindSign(key, new Uint8Array(Buffer.from(pending.request, "base64")), 0);
    times.sign.push(performance.now() - t);
    t = performance.now();
    const token = await pending.finish(Buffer.from(signed).toString("base64"));
    times.finish.push(performance.now() - t);
    const plan = { views: { length: 28 } };
    const { viewOfToken, reportIdOfToken } = await import("@calm-ldp/client/tokens");
    const bytes = new Uint8Array(Buffer.from(token, "base64"));
    const report = {
      id: await reportIdOfToken(bytes),
      view: await viewOfToken(bytes, plan.views.length),
      token,
    };
    t = performance.now();
    checkTokenReports(key, 28, [report]);
    times.redeem.push(performance.now() - t);
  }
  console.log(
    `per token (median of 200): client blind ${ms(median(times.blind))}, issuer sign ${ms(median(times.sign))}, client finalize ${ms(median(times.finish))}; collector redemption check ${ms(median(times.redeem))}`,
  );
}

async function ingest(reports: number, runs: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "calm-tokens-bench-"));
  const token = "bench-admin-token-0123456789abcdef";
  const collector = await startCollector({
    storage: await openDuckDbStorage(join(dir, "bench.duckdb")),
    adminToken: token,
    tokens: { attester: testAttester(reports) },
  });
  const plain = await startCollector({
    storage: await openDuckDbStorage(join(dir, "plain.duckdb")),
    adminToken: token,
  });
  const attributes = Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cardinality: 2 }));
  const rng = seededRng(3);
  const record = () => attributes.map(() => rng.nextUint32() & 1);
  const newRound = async (url: string) => {
    const response = await fetch(`${url}/v1/rounds`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ schema: { attributes }, eps: 1, k: 2, n: reports }),
    });
    const body = (await response.json()) as { round: string; plan: unknown };
    return { round: body.round, plan: readPlan(body.plan) };
  };
  const post = async (url: string, round: string, batches: WireReport[][]) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < batches.length) await sendReports(url, round, batches[next++]!);
      }),
    );
    return reports / ((performance.now() - started) / 1000);
  };
  const chunk = (all: WireReport[]) =>
    Array.from({ length: Math.ceil(all.length / 100) }, (_, i) => all.slice(i * 100, i * 100 + 100));
  const rates = { unprotected: [] as number[], protected: [] as number[] };
  for (let run = 0; run < runs; run++) {
    const a = await newRound(plain.url);
    rates.unprotected.push(
      await post(
        plain.url,
        a.round,
        chunk(Array.from({ length: reports }, () => createReport(a.plan, record(), { rng }))),
      ),
    );
    const b = await newRound(collector.url);
    const key = await fetchTokenKey(collector.url, b.round);
    const tokens: string[] = [];
    for (let at = 0; at < reports; at += 100)
      tokens.push(
        ...(await obtainTokens(collector.url, key, Math.min(100, reports - at), { attestation: "bench" })),
      );
    const made = await Promise.all(tokens.map((t) => createTokenReport(b.plan, record(), t, { rng })));
    rates.protected.push(await post(collector.url, b.round, chunk(made)));
    console.log(
      `run ${run + 1}: unprotected ${rates.unprotected.at(-1)!.toFixed(0)} reports/s, protected ${rates.protected.at(-1)!.toFixed(0)} reports/s`,
    );
  }
  const [u, p] = [median(rates.unprotected), median(rates.protected)];
  console.log(
    `ingest (${reports} reports per run, medians of ${runs}): unprotected ${u.toFixed(0)}/s, protected ${p.toFixed(0)}/s, ratio ${(p / u).toFixed(2)}`,
  );
  await collector.close();
  await plain.close();
  rmSync(dir, { recursive: true, force: true });
}

async function ledgers(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "calm-ledger-bench-"));
  try {
    const window = "00000000-0000-4000-8000-000000000002";
    const time = async (ledger: QuotaStore) => {
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const t = performance.now();
        await ledger.take(window, `device:${i}`, 1, 1);
        times.push(performance.now() - t);
      }
      return median(times);
    };
    const memory = await time(new QuotaLedger());
    const disk = await time(new DirectoryQuotaLedger(dir));
    console.log(`quota ledger per token request (median of 2000): memory ${ms(memory)}, on disk ${ms(disk)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await perToken();
await ledgers();
await ingest(arg("reports", 5000), arg("runs", 2));
