// The page's script (bundled with @calm-ldp/client for the browser by web-cors.test.ts): fetch
// the round's plan from the collector (another origin), perturb n users' records with
// createReport and send them with sendReports in batches; on an origin the collector does not
// allow, both the plan fetch and a report POST must be refused by the browser.
import { createReport, createReportId, fetchPlan, sendReports, type WireReport } from "@calm-ldp/client";

const params = new URLSearchParams(location.search);
const collector = params.get("collector")!;
const round = params.get("round")!;
const n = Number(params.get("n"));
const BATCH = 50;
const result: Record<string, unknown> = { origin: location.origin };
const describe = (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`;

let plan: Awaited<ReturnType<typeof fetchPlan>>["plan"] | undefined;
try {
  plan = (await fetchPlan(collector, round)).plan;
} catch (error) {
  result.planError = describe(error);
}
if (plan) {
  const perView = new Array<number>(plan.views.length).fill(0);
  let acknowledged = 0;
  let stored = 0;
  try {
    for (let from = 0; from < n; from += BATCH) {
      const reports: WireReport[] = [];
      for (let i = from; i < Math.min(n, from + BATCH); i++) {
        // User i's record: attribute j is bit j of i (mod its cardinality).
        const record = plan.schema.attributes.map((a, j) => ((i >> j) & 1) % a.labels.length);
        const report = createReport(plan, record);
        perView[report.view]!++;
        reports.push(report);
      }
      const ack = await sendReports(collector, round, reports);
      acknowledged += ack.acknowledged;
      stored += ack.stored;
    }
    Object.assign(result, { acknowledged, stored, perView });
  } catch (error) {
    result.postError = describe(error);
  }
} else {
  // Without the plan, try a report POST anyway (what a page would send): the preflight is refused.
  try {
    await sendReports(collector, round, [{ id: createReportId(), view: 0, value: 0 }]);
    result.post = "sent";
  } catch (error) {
    result.postError = describe(error);
  }
}
(window as unknown as { result: unknown }).result = result;
document.getElementById("status")!.textContent = JSON.stringify(result);
document.body.dataset.done = "1";
