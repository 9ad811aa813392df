// The page's script (bundled with @calm-ldp/client and @calm-ldp/client/tokens by web-tokens.test.ts):
// one device reporting once per round to a protected collector on another origin. It keeps in
// localStorage its device id (its attestation for the test attester) and the rounds it reported
// in; on a reload for a round it already reported in it asks for no token and sends nothing.
import { fetchPlan, sendReports } from "@calm-ldp/client";
import { createTokenReport, fetchTokenKey, obtainTokens } from "@calm-ldp/client/tokens";

const params = new URLSearchParams(location.search);
const collector = params.get("collector")!;
const round = params.get("round")!;
const result: Record<string, unknown> = { origin: location.origin };
const describe = (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`;

try {
  const device = localStorage.getItem("calm-device") ?? crypto.randomUUID();
  localStorage.setItem("calm-device", device);
  const reported = JSON.parse(localStorage.getItem("calm-reported") ?? "[]") as string[];
  if (reported.includes(round)) {
    result.skipped = "already reported in this round";
  } else {
    const { plan } = await fetchPlan(collector, round);
    const key = await fetchTokenKey(collector, round);
    const [token] = await obtainTokens(collector, key, 1, { attestation: device });
    const record = plan.schema.attributes.map(() => 1);
    const report = await createTokenReport(plan, record, token!);
    const ack = await sendReports(collector, round, [report]);
    localStorage.setItem("calm-reported", JSON.stringify([...reported, round]));
    Object.assign(result, { view: report.view, stored: ack.stored, tokens: 1 });
  }
} catch (error) {
  result.error = describe(error);
}
(window as unknown as { result: unknown }).result = result;
document.getElementById("status")!.textContent = JSON.stringify(result);
document.body.dataset.done = "1";
