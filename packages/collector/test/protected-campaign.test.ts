import { randomUUID } from "node:crypto";
import { createReporter, memoryStorage, sendReports } from "@calm-ldp/client";
import {
  beginToken,
  campaignView,
  createTokenReport,
  fetchTokenKey,
  obtainCampaignRoundTokens,
  obtainTokens,
  reportIdOfToken,
} from "@calm-ldp/client/tokens";
import { describe, expect, it } from "vitest";
import { testAttester } from "../src/index.js";
import {
  call,
  campaignToken,
  createBinaryCampaign,
  duckdbCollectors,
  postReports as post,
} from "./support.js";

const perView = async (url: string, round: string) =>
  ((await call(`${url}/v1/rounds/${round}/status`, "GET")).body as { perView: number[] }).perView;
const nextRound = async (url: string, campaign: string) =>
  (await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST", {})).body.round as string;

describe("protected campaigns: the view fixed by a campaign token, carried by each round's key", () => {
  const collectors = duckdbCollectors();
  const record = [1, 0, 1, 1];

  it("a device keeps its campaign view across rounds; another view costs a new campaign token; the collector checks the view", async () => {
    const { collector } = await collectors.start("campaign.duckdb", { tokens: { attester: testAttester() } });
    const url = collector.url;
    const { campaign, round: round0, plan } = await createBinaryCampaign(url, { n: 10_000 });
    const m = plan.views.length;
    expect(m).toBe(6); // pair views: a view is a real choice
    const ct = await campaignToken(url, campaign, "device-a");
    const view = await campaignView(ct, m);

    // Round 0: the round's tokens are signed with the key of the device's view; the report claims it.
    const first = await obtainCampaignRoundTokens(url, round0, ct, m);
    expect(first.view).toBe(view);
    const report0 = await createTokenReport(plan, record, first.tokens[0]!, { view });
    expect((await post(url, round0, [report0])).body).toMatchObject({ stored: 1 });
    expect((await perView(url, round0))[view]).toBe(1);
    // One round token per campaign token and round.
    await expect(obtainCampaignRoundTokens(url, round0, ct, m)).rejects.toMatchObject({
      status: 403,
      reason: "quota-exhausted",
    });

    // Round 1: the same view, a new key (keys rotate per round), the round-0 token worthless there.
    const key0 = await fetchTokenKey(url, round0, { view });
    const round1 = await nextRound(url, campaign);
    const second = await obtainCampaignRoundTokens(url, round1, ct, m);
    expect(second.view).toBe(view);
    expect((await fetchTokenKey(url, round1, { view })).publicKey).not.toBe(key0.publicKey);
    // The closed round gives no more tokens.
    await expect(fetchTokenKey(url, round0, { view })).rejects.toMatchObject({
      status: 409,
      reason: "round-closed",
    });
    const stale = await createTokenReport(plan, record, first.tokens[0]!, { view });
    expect((await post(url, round1, [stale])).body).toMatchObject({
      statusCode: 403,
      reason: "token-wrong-round",
    });
    // The collector refuses a report whose view is not its token's (the key of another view).
    const other = (view + 1) % m;
    const lying = await createTokenReport(plan, record, second.tokens[0]!, { view: other });
    expect((await post(url, round1, [lying])).body).toMatchObject({
      statusCode: 403,
      reason: "token-view-mismatch",
    });
    const honest = await createTokenReport(plan, record, second.tokens[0]!, { view });
    expect((await post(url, round1, [honest])).body).toMatchObject({ stored: 1 });
    expect((await perView(url, round1))[view]).toBe(1);

    // Grinding: asking for another view's key with one's campaign token gets nothing signed.
    const otherKey = await fetchTokenKey(url, round1, { view: other });
    const pending = await beginToken(otherKey);
    const grind = await call(
      `${url}/v1/rounds/${round1}/tokens`,
      "POST",
      { requests: [pending.request], campaignToken: ct },
      undefined,
    );
    expect(grind.body).toMatchObject({ statusCode: 400, reason: "invalid-token-request" });
    // A second campaign token (a chance at another view) needs a new quota: refused for this device.
    await expect(campaignToken(url, campaign, "device-a")).rejects.toMatchObject({
      status: 403,
      reason: "quota-exhausted",
    });
    expect(await campaignView(await campaignToken(url, campaign, "device-b"), m)).toBeGreaterThanOrEqual(0);
  });

  it("refuses round tokens without a valid campaign token of this campaign, and key requests without a view", async () => {
    const { collector } = await collectors.start("refusals.duckdb", { tokens: { attester: testAttester() } });
    const url = collector.url;
    const { campaign, round, plan } = await createBinaryCampaign(url, { n: 10_000 });
    const other = await createBinaryCampaign(url, { n: 10_000 });
    const m = plan.views.length;
    expect(
      (await call(`${url}/v1/rounds/${round}/token-key`, "GET", undefined, undefined)).body,
    ).toMatchObject({
      statusCode: 400,
      reason: "view-required",
    });
    const key = await fetchTokenKey(url, round, { view: 0 });
    await expect(obtainTokens(url, key, 1, { attestation: "no-campaign-token" })).rejects.toMatchObject({
      status: 401,
      reason: "campaign-token-required",
    });
    const foreign = await campaignToken(url, other.campaign, "device");
    await expect(obtainCampaignRoundTokens(url, round, foreign, m)).rejects.toMatchObject({
      status: 403,
      reason: "campaign-token-invalid",
    });
    // An unknown campaign has no campaign key.
    expect(
      (await call(`${url}/v1/campaigns/${randomUUID()}/token-key`, "GET", undefined, undefined)).status,
    ).toBe(404);
    expect(campaign).not.toBe(other.campaign);
  });

  it("createReporter (memoized, one view per campaign) reports through campaign tokens, same view in every round", async () => {
    const { collector } = await collectors.start("reporter.duckdb", { tokens: { attester: testAttester() } });
    const url = collector.url;
    const { campaign, round: round0, plan } = await createBinaryCampaign(url, { n: 10_000 });
    const m = plan.views.length;
    const ct = await campaignToken(url, campaign, "reporter-device");
    const view = await campaignView(ct, m);
    const tokens = new Map<string, string>(); // report id -> the token it spends
    let nextId = "";
    const reporter = await createReporter({
      plan,
      storage: memoryStorage(),
      maxEps: 10,
      campaign,
      view, // the campaign token's view, kept by the reporter for the campaign
      reportIds: () => nextId,
      send: (round, reports) =>
        sendReports(
          url,
          round,
          reports.map((r) => ({ ...r, token: tokens.get(r.id)! })),
        ),
    });
    for (const index of [0, 1]) {
      const round = index === 0 ? round0 : await nextRound(url, campaign);
      const {
        tokens: [token],
      } = await obtainCampaignRoundTokens(url, round, ct, m);
      nextId = await reportIdOfToken(new Uint8Array(Buffer.from(token!, "base64")));
      tokens.set(nextId, token!);
      const { report, flush } = await reporter.report(record, { round });
      expect(report.view).toBe(view);
      expect(flush).toMatchObject({ sent: 1, refused: [] });
      expect((await perView(url, round))[view]).toBe(1);
    }
    expect(reporter.ledger()).toMatchObject({ view, rounds: 2, memoized: 1 });
  });
});
