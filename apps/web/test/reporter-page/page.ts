// The page's script (bundled with @calm-ldp/client for the browser by web-reporter.test.ts):
// find the campaign's open round on the collector (another origin), report the record given in the
// query string through a persistent reporter kept in IndexedDB, and show the ledger.
import { createReporter, fetchCampaignRound, indexedDbStorage, sendReports } from "@calm-ldp/client";

const params = new URLSearchParams(location.search);
const collector = params.get("collector")!;
const campaign = params.get("campaign")!;
const record = JSON.parse(params.get("record")!) as number[];
const show = (id: string, value: unknown) => {
  document.getElementById(id)!.textContent = typeof value === "string" ? value : JSON.stringify(value);
};

try {
  const current = await fetchCampaignRound(collector, campaign);
  const reporter = await createReporter({
    plan: current.plan,
    storage: indexedDbStorage("calm-ldp-test"),
    maxEps: 5,
    campaign,
    send: (round, reports) => sendReports(collector, round, reports),
  });
  const { report, flush } = await reporter.report(record, { round: current.round });
  const ledger = reporter.ledger();
  show("round", `${current.index} ${current.round}`);
  show(
    "ledger",
    `eps spent ${ledger.eps} of ${ledger.maxEps} (${ledger.memoized} value, ${ledger.rounds} rounds, group ${ledger.view}, state ${ledger.start})`,
  );
  (window as unknown as { result: unknown }).result = {
    round: current.round,
    index: current.index,
    report,
    flush,
    ledger,
  };
} catch (error) {
  show("error", String(error));
  (window as unknown as { result: unknown }).result = { error: String(error) };
}
document.body.dataset.done = "1";
