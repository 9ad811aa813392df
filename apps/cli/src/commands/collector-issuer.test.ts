import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readPlan, sendReports } from "@calm-ldp/client";
import { createTokenReport, fetchTokenKey, obtainTokens } from "@calm-ldp/client/tokens";
import { type RunningCollector, startCollector } from "@calm-ldp/collector";
import { openDuckDbStorage } from "@calm-ldp/collector/duckdb";
import { afterAll, describe, expect, it } from "vitest";
import { type IssuerCliOptions, servedTokens } from "./collector-issuer.js";
import { collectorCommandTests, freePort, TEST_ADMIN_TOKEN } from "./collector-test-support.js";

const root = fileURLToPath(new URL("../../../..", import.meta.url));

describe("calm-ldp collector issuer, and serve --issuer-url", () => {
  const { dir, run } = collectorCommandTests("calm-issuer-cli-");
  let collector: RunningCollector | undefined;
  afterAll(async () => collector?.close());

  it("usage errors name the option", async () => {
    await expect(run(["issuer"])).rejects.toThrow(/collector issuer: --collector-url is required/);
    await expect(
      run(["serve", "--db", join(dir, "x.duckdb"), "--issuer-url", "http://127.0.0.1:9"]),
    ).rejects.toThrow(/--issuer-url needs --require-tokens/);
    await expect(
      run([
        "serve",
        "--db",
        join(dir, "x.duckdb"),
        "--require-tokens",
        "--issuer-url",
        "http://127.0.0.1:9",
        "--token-key-dir",
        dir,
      ]),
    ).rejects.toThrow(/the keys and the quota ledger are the issuer's/);
    const db = ["serve", "--db", join(dir, "x.duckdb")];
    await expect(run([...db, "--ledger-prune-every", "5m"])).rejects.toThrow(
      /--ledger-prune-every needs --require-tokens/,
    );
    await expect(run([...db, "--require-tokens", "--ledger-prune-every", "often"])).rejects.toThrow(
      /collector serve: --ledger-prune-every must be a duration like 90s/,
    );
    await expect(
      run(["issuer", "--collector-url", "http://127.0.0.1:9", "--ledger-prune-every", "-1s"]),
    ).rejects.toThrow(/collector issuer: --ledger-prune-every must be a duration/);
  });

  it("--ledger-prune-every sets the token issuer's prune interval (0: never)", () => {
    const base = { attester: "test", "require-tokens": true } as const;
    expect(servedTokens({ ...base, "ledger-prune-every": "90s" } as IssuerCliOptions)).toMatchObject({
      ledgerPruneEveryMs: 90_000,
    });
    expect(servedTokens({ ...base, "ledger-prune-every": "0" } as IssuerCliOptions)).toMatchObject({
      ledgerPruneEveryMs: false,
    });
    expect(servedTokens({ ...base } as IssuerCliOptions)).not.toHaveProperty("ledgerPruneEveryMs");
  });

  it("an issuer process gives tokens for the collector's rounds; the collector (issuerUrl) counts their reports", async () => {
    const port = await freePort(); // the collector must know its issuer's URL before the issuer listens
    collector = await startCollector({
      storage: await openDuckDbStorage(join(dir, "apart.duckdb")),
      adminToken: TEST_ADMIN_TOKEN,
      tokens: { issuerUrl: `http://127.0.0.1:${port}` },
    });
    const args = ["--collector-url", collector.url, "--port", String(port), "--attester", "test"];
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "apps/cli/src/cli.ts",
        "collector",
        "issuer",
        ...args,
        "--token-key-dir",
        join(dir, "keys"),
        "--json",
      ],
      {
        cwd: root,
        env: { ...process.env, TSX_TSCONFIG_PATH: "apps/cli/tsconfig.json" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const output = { stdout: "", stderr: "" };
    child.stdout.on("data", (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output.stderr += chunk.toString()));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      for (let waited = 0; !/listening on/.test(output.stderr); waited += 50) {
        if (waited > 60_000) throw new Error(`issuer did not start: ${output.stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const issuerUrl = `http://127.0.0.1:${port}`;
      const attributes = Array.from({ length: 4 }, (_, i) => ({ name: `b${i}`, labels: ["0", "1"] }));
      const created = await fetch(`${collector.url}/v1/rounds`, {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ schema: { attributes }, eps: 1, k: 2, n: 10_000 }),
      }).then((r) => r.json() as Promise<{ round: string; plan: unknown }>);
      const plan = readPlan(created.plan);
      const [token] = await obtainTokens(issuerUrl, await fetchTokenKey(issuerUrl, created.round), 1, {
        attestation: "device",
      });
      const report = await createTokenReport(plan, [1, 0, 1, 0], token!);
      expect(await sendReports(collector.url, created.round, [report])).toMatchObject({ stored: 1 });
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
    expect(JSON.parse(output.stdout)).toMatchObject({
      collectorUrl: collector.url,
      attester: "test",
      stoppedBy: "SIGTERM",
    });
  });
});
