// The page's script (bundled with @calm-ldp/client and @calm-ldp/client/tokens by
// web-campaign-tokens.test.ts): one device in a protected campaign on another origin. Its
// tokens live in an IndexedDB token wallet beside its reporter's state: the campaign token
// (obtained once with the device's attestation; it fixes the view) and each round's token
// (obtained once per round with the campaign token). The reporter memoizes the response
// and refuses a second report in a round, so a reload asks for nothing and sends nothing.
// `?forge=1`: the page claims another view with its round token instead of reporting.
import {
  CollectorResponseError,
  createReporter,
  fetchCampaignRound,
  indexedDbStorage,
  ReporterError,
  sendReports,
} from "@calm-ldp/client";
import {
  campaignView,
  createTokenReport,
  fetchCampaignTokenKey,
  obtainCampaignRoundTokens,
  obtainTokens,
  openTokenWallet,
} from "@calm-ldp/client/tokens";

const params = new URLSearchParams(location.search);
const collector = params.get("collector")!;
const campaign = params.get("campaign")!;
const record = JSON.parse(params.get("record")!) as number[];
const result: Record<string, unknown> = { origin: location.origin };
const describe = (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`;

try {
  const device = localStorage.getItem("calm-device") ?? crypto.randomUUID();
  localStorage.setItem("calm-device", device);
  const storage = indexedDbStorage("calm-ldp-campaign-tokens");
  const { plan, round, index } = await fetchCampaignRound(collector, campaign);
  const views = plan.views.length;
  const wallet = await openTokenWallet(storage, campaign);
  const campaignToken = await wallet.campaignToken(async () => {
    const key = await fetchCampaignTokenKey(collector, campaign);
    return (await obtainTokens(collector, key, 1, { attestation: device }))[0]!;
  });
  const view = await campaignView(campaignToken, views);
  const held = await wallet.roundToken(
    round,
    async () => (await obtainCampaignRoundTokens(collector, round, campaignToken, views)).tokens[0]!,
  );
  Object.assign(result, { round, index, views, view, wallet: wallet.start });
  if (params.get("forge") === "1") {
    const claimed = (view + 1) % views;
    const forged = await createTokenReport(plan, record, held.token, { view: claimed });
    const sent = await sendReports(collector, round, [forged]).catch((error: unknown) => error);
    result.forged =
      sent instanceof CollectorResponseError
        ? { claimed, status: sent.status, reason: sent.reason }
        : { claimed, accepted: sent };
  } else {
    const reporter = await createReporter({
      plan,
      storage,
      maxEps: 5,
      campaign,
      view,
      reportIds: () => held.id,
      send: wallet.send(collector),
    });
    try {
      const { report, flush } = await reporter.report(record, { round });
      Object.assign(result, { report, flush });
    } catch (error) {
      if (!(error instanceof ReporterError && error.problem === "round")) throw error;
      result.skipped = "already reported in this round";
    }
    result.ledger = reporter.ledger();
  }
} catch (error) {
  result.error = describe(error);
}
(window as unknown as { result: unknown }).result = result;
document.getElementById("status")!.textContent = JSON.stringify(result);
document.body.dataset.done = "1";
