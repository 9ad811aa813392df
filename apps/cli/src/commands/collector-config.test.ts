import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { maskedConfiguration, maskUrl } from "./collector-config.js";
import { collectorCommandTests, spawnServe, TEST_ADMIN_TOKEN } from "./collector-test-support.js";

describe("calm-ldp collector serve --config, migrate", () => {
  const { dir, run } = collectorCommandTests("calm-collector-config-");
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const serveWith = (name: string, text: string) => run(["serve", "--config", file(name, text)]);

  it("refuses a bad configuration file with an error naming the file and the key", async () => {
    const db = join(dir, "never.duckdb");
    const cases: [string, string, RegExp][] = [
      [
        "unknown.yaml",
        `db: ${db}\nprot: 80\n`,
        /config file .*unknown\.yaml: unknown key "prot" \(keys: db, postgres/,
      ],
      ["type.yaml", "port: eighty\n", /key "port" must be a number \(got "eighty"\)/],
      ["range.json", '{"port": 70000}', /key "port" must be <= 65535 \(got 70000\)/],
      ["integer.yaml", "max-batch: 2.5\n", /key "max-batch" must be an integer \(got 2\.5\)/],
      ["choice.yaml", "log-level: loud\n", /key "log-level" must be one of trace, debug, info/],
      [
        "secret.yaml",
        "admin-token: abcdefghijklmnopqrstuvwxyz\n",
        /key "admin-token" is not allowed: .*CALM_LDP_ADMIN_TOKEN/,
      ],
      [
        "retention.yaml",
        `db: ${db}\nid-retention: a week\n`,
        /key "id-retention" must be a duration like 90s/,
      ],
      ["limit.yaml", `db: ${db}\nrate-limit: lots\n`, /key "rate-limit" must be <requests-per-second>/],
      [
        "origin.yaml",
        `db: ${db}\nallow-origin: [https://ok.example, "*"]\n`,
        /key "allow-origin" .*wildcards/,
      ],
      ["proxy.yaml", `db: ${db}\ntrust-proxy: the-proxy\n`, /key "trust-proxy" must list proxy addresses/],
      ["broken.yaml", "port: [1,\n", /broken\.yaml: not valid YAML/],
      ["broken.json", "{port: 1}", /broken\.json: not valid JSON/],
      ["list.yaml", "- port\n", /must be a mapping of option names to values/],
      ["config.txt", "port: 1\n", /must end in \.yaml, \.yml or \.json/],
    ];
    for (const [name, text, error] of cases) await expect(serveWith(name, text), name).rejects.toThrow(error);
    await expect(run(["serve", "--config", join(dir, "absent.yaml")])).rejects.toThrow(/cannot read it/);
  });

  it("masks secrets in the printed configuration", () => {
    expect(maskUrl("postgres://calm:s3cret@db.example:5432/calm")).toBe(
      "postgres://calm:***@db.example:5432/calm",
    );
    expect(maskUrl("http://u:p@127.0.0.1:1,127.0.0.1:2/db?cluster=c")).toBe(
      "http://u:***@127.0.0.1:1,127.0.0.1:2/db?cluster=c",
    );
    expect(maskUrl("postgres://calm@db/calm")).toBe("postgres://calm@db/calm");
    const shown = JSON.stringify(maskedConfiguration({ postgres: "postgres://a:b@h/d", port: 1 }));
    expect(shown).toBe(
      '{"postgres":"postgres://a:***@h/d","port":1,"admin-token":"*** (from CALM_LDP_ADMIN_TOKEN)"}',
    );
  });

  it("migrate brings a DuckDB file to the current schema version once, and needs a storage", async () => {
    const db = join(dir, "migrate.duckdb");
    expect(await run(["migrate", "--db", db])).toMatchObject({
      backend: "duckdb",
      from: 0,
      to: 6,
      steps: [],
    });
    expect(await run(["migrate", "--db", db])).toMatchObject({
      backend: "duckdb",
      from: 6,
      to: 6,
      steps: [],
    });
    await expect(run(["migrate"])).rejects.toThrow(
      /collector migrate: give --db, --postgres or --clickhouse/,
    );
  });

  it("serve --config (a real CLI process): the file's options apply, the effective configuration is printed, refusals are logged as JSON lines, metrics on their own port", async () => {
    const config = file(
      "collector.yaml",
      [
        `db: ${join(dir, "served.duckdb")}`,
        "port: 0",
        "max-batch: 7",
        "metrics-port: 0",
        "id-retention: 2h",
        "",
      ].join("\n"),
    );
    const serving = spawnServe(["--config", config]);
    const { child, output, exited } = serving;
    try {
      const url = (await serving.started(/collector listening on (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
      const metrics = (
        await serving.started(/collector: metrics on (http:\/\/127\.0\.0\.1:\d+)\/metrics/)
      )[1]!;
      expect(metrics).not.toBe(url);
      const printed = JSON.parse(/collector: configuration (\{.*\})/.exec(output.stderr)![1]!);
      expect(printed).toMatchObject({
        "max-batch": 7,
        "id-retention": "2h",
        "admin-token": "*** (from CALM_LDP_ADMIN_TOKEN)",
      });
      expect(output.stderr).not.toContain(TEST_ADMIN_TOKEN);
      // max-batch 7 from the file: a batch of 8 is refused, and the refusal is one JSON log line.
      const id = "0f8fad5b-d9cb-469f-a165-70867728950e";
      const refused = await fetch(`${url}/v1/rounds/${id}/reports`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ round: id, reports: new Array(8).fill({ id, view: 0, value: 0 }) }),
      });
      expect(refused.status).toBe(413);
      const text = await (await fetch(`${metrics}/metrics`)).text();
      expect(text).toContain('calm_collector_report_batches_refused_total{reason="batch-too-large"} 1');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const line = output.stderr.split("\n").find((l) => l.includes('"event":"batch-refused"'));
      expect(JSON.parse(line!)).toMatchObject({
        level: 30,
        reason: "batch-too-large",
        reports: 8,
        statusCode: 413,
      });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(JSON.parse(output.stdout)).toMatchObject({
      storage: "duckdb",
      idRetentionMs: 7_200_000,
      configuration: { "max-batch": 7 },
      schemaMigration: { from: 0, to: 6 },
    });
  });
});
