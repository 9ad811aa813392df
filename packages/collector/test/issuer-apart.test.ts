import { join } from "node:path";
import {
  campaignView,
  createTokenReport,
  fetchTokenKey,
  obtainCampaignRoundTokens,
  obtainTokens,
} from "@calm-ldp/client/tokens";
import { describe, expect, it } from "vitest";
import {
  call,
  campaignToken,
  collectorWithIssuerApart,
  createBinaryCampaign,
  duckdbCollectors,
  mixedRound,
  postReports as post,
  suiteIssuers,
} from "./support.js";

describe("the token issuer apart from the collector (two servers, two key directories)", () => {
  const collectors = duckdbCollectors();
  const issuers = suiteIssuers();
  const record = [0, 1, 2, 1, 0, 3, 2, 1];

  it("the collector verifies the separate issuer's tokens, refuses another issuer's, and the issuer's quota survives its restart", async () => {
    const { collector, port } = await collectorWithIssuerApart(collectors, "apart.duckdb");
    const keysA = join(collectors.dir, "issuer-a");
    const start = (keyDir: string, at = 0) => issuers.start(collector.url, { keyDir, port: at });
    let issuerA = await start(keysA, port);
    const issuerB = await start(join(collectors.dir, "issuer-b"));
    const { round, plan } = await mixedRound(collector.url, 5000, 1);

    // The collector serves no token endpoint: devices ask the issuer.
    expect(
      (await call(`${collector.url}/v1/rounds/${round}/token-key`, "GET", undefined, undefined)).status,
    ).toBe(404);
    const [good] = await obtainTokens(issuerA.url, await fetchTokenKey(issuerA.url, round), 1, {
      attestation: "d1",
    });
    const report = await createTokenReport(plan, record, good!);
    expect((await post(collector.url, round, [report])).body).toMatchObject({ stored: 1 });

    // Another issuer (its own keys) mints a token for the same round: the collector refuses it.
    const [foreign] = await obtainTokens(issuerB.url, await fetchTokenKey(issuerB.url, round), 1, {
      attestation: "d2",
    });
    expect(
      (await post(collector.url, round, [await createTokenReport(plan, record, foreign!)])).body,
    ).toMatchObject({
      statusCode: 403,
      reason: "token-invalid",
    });

    // Issuer A restarts on its key directory: same key, and device d1 gets no fresh budget in this round.
    // (On another port: the test's HTTP client may still hold a keep-alive socket to the old one;
    // the collector keeps the key it fetched, which the fresh token below shows is the same key.)
    await issuerA.close();
    issuerA = await start(keysA);
    const key = await fetchTokenKey(issuerA.url, round);
    await expect(obtainTokens(issuerA.url, key, 1, { attestation: "d1" })).rejects.toMatchObject({
      status: 403,
      reason: "quota-exhausted",
    });
    const [fresh] = await obtainTokens(issuerA.url, key, 1, { attestation: "d3" });
    expect(
      (await post(collector.url, round, [await createTokenReport(plan, record, fresh!)])).body,
    ).toMatchObject({
      stored: 1,
    });
    // A closed round: the issuer (asking the collector) gives no more tokens.
    await call(`${collector.url}/v1/rounds/${round}/close`, "POST", {});
    await expect(fetchTokenKey(issuerA.url, round)).rejects.toMatchObject({
      status: 409,
      reason: "round-closed",
    });
  });

  it("campaign tokens from the separate issuer: the collector checks each report's view against the issuer's view key", async () => {
    const { collector, port } = await collectorWithIssuerApart(collectors, "apart-campaign.duckdb");
    const issuer = await issuers.start(collector.url, { port });
    const { campaign, round, plan } = await createBinaryCampaign(collector.url, { n: 10_000 });
    const m = plan.views.length;
    const ct = await campaignToken(issuer.url, campaign, "device");
    const { view, tokens } = await obtainCampaignRoundTokens(issuer.url, round, ct, m);
    expect(view).toBe(await campaignView(ct, m));
    const lying = await createTokenReport(plan, [1, 1, 0, 0], tokens[0]!, { view: (view + 1) % m });
    expect((await post(collector.url, round, [lying])).body).toMatchObject({
      statusCode: 403,
      reason: "token-view-mismatch",
    });
    const honest = await createTokenReport(plan, [1, 1, 0, 0], tokens[0]!, { view });
    expect((await post(collector.url, round, [honest])).body).toMatchObject({ stored: 1 });
  });
});
