import type { CalmPlan } from "@calm-ldp/calm-core";
import type { CampaignDetail, ConsoleApi, RoundSummary, SeriesAnswer } from "./api.js";
import { seriesSvg } from "./charts.js";
import { count, duration, fraction, h, notice, row, table, time } from "./dom.js";
import { attributePicker, attrsParam, cellLabels, defaultAttributes } from "./marginal.js";
import { planSummary } from "./plan-view.js";
import { roundsTable } from "./rounds-table.js";
import { snippetBlock } from "./snippet.js";

/** The interval level the console asks for. */
export const LEVEL = 0.95;

/** The numbers behind the series chart: per round its n and, per cell, estimate [lower, upper]. */
function seriesTable(answer: SeriesAnswer, labels: readonly string[]): HTMLTableElement {
  const rows = answer.series.map((point) =>
    row({ "data-index": String(point.index) }, [
      ["index", String(point.index)] as const,
      ["n", count(point.n)] as const,
      ...labels.map((_, c) => {
        const lo = point.lower?.[c];
        const hi = point.upper?.[c];
        const text = lo === undefined || hi === undefined ? "" : ` [${fraction(lo)}, ${fraction(hi)}]`;
        return [`cell-${c}`, `${fraction(point.cells[c]!)}${text}`] as const;
      }),
    ]),
  );
  return table(`Estimates per round (${LEVEL * 100}% intervals)`, ["Round", "Reports", ...labels], rows, {
    class: "series-table",
  });
}

/**
 * The time series of one marginal across the campaign's rounds (`GET
 * /v1/campaigns/:id/marginals` with a 95% interval, except for a campaign with an
 * instantaneous layer, whose estimates have no interval): a chart with one line per
 * cell and error bars, and the numbers in a table; rounds without an interval say why.
 */
async function renderSeries(
  api: ConsoleApi,
  campaign: CampaignDetail,
  attributes: readonly number[],
  into: HTMLElement,
): Promise<void> {
  const plan = campaign.plan;
  const interval = campaign.instantEps === null ? `&interval=${LEVEL}` : "";
  const answer = await api.get<SeriesAnswer>(
    `/v1/campaigns/${campaign.campaign}/marginals?attrs=${attrsParam(plan, attributes)}${interval}`,
  );
  const labels = cellLabels(plan, answer.attributes);
  if (answer.series.length === 0) {
    into.replaceChildren(notice("empty", "No rounds yet.", "The campaign has opened no round."));
    return;
  }
  const lines = labels.map((label, c) => ({
    label,
    points: answer.series.map((p) => ({ x: p.index, y: p.cells[c]!, lo: p.lower?.[c], hi: p.upper?.[c] })),
  }));
  const shown = lines.length <= 10 ? lines : lines.slice(0, 10);
  const notes = answer.series.filter((p) => p.noInterval).map((p) => `round ${p.index}: ${p.noInterval}`);
  into.replaceChildren(
    seriesSvg(
      shown,
      `marginal of ${answer.attrs.join(", ")} across rounds, with ${LEVEL * 100}% intervals`,
      "round",
    ),
    lines.length > shown.length
      ? notice("empty", "Chart shows the first 10 cells;", "the table has all.")
      : "",
    campaign.instantEps === null
      ? ""
      : notice(
          "empty",
          "No intervals:",
          "this campaign's clients use an instantaneous layer (no interval form).",
        ),
    ...notes.map((note) => notice("empty", "No interval for", note)),
    seriesTable(answer, labels),
  );
}

/** The series section: the attribute picker, a Show button and the chart. */
function seriesSection(api: ConsoleApi, campaign: CampaignDetail, fail: (error: unknown) => HTMLElement) {
  const plan: CalmPlan = campaign.plan;
  const picker = attributePicker(plan, defaultAttributes(plan), plan.k);
  const output = h("div", { id: "series", class: "chart" });
  const show = () => {
    const attributes = picker.selected();
    if (attributes.length === 0) {
      output.replaceChildren(notice("error", "Pick an attribute.", "A marginal needs at least one."));
      return Promise.resolve();
    }
    output.replaceChildren(h("p", { class: "loading" }, "loading…"));
    output.dataset.state = "loading";
    return renderSeries(api, campaign, attributes, output).then(
      () => {
        output.dataset.state = "ready";
      },
      (error) => {
        output.replaceChildren(fail(error));
        output.dataset.state = "error";
      },
    );
  };
  const form = h("form", { class: "query" }, picker.element, h("button", { type: "submit" }, "Show"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void show();
  });
  return {
    element: h(
      "section",
      { "aria-labelledby": "series-title" },
      h("h2", { id: "series-title" }, "A marginal across rounds"),
      form,
      output,
    ),
    show,
  };
}

/**
 * A campaign's page (`#/campaigns/<id>`): its plan and schedule, every round
 * (state, window, reports accepted and refused by reason, per-view balance, ids
 * held), the time series of a marginal, and the client snippet. Reading the
 * campaign rolls a scheduled campaign over, as every campaign read does. The page
 * is ready once the campaign and its rounds are (two calls at once); the series
 * (one estimate per round, the slowest call) is drawn when it arrives.
 */
export async function renderCampaign(
  api: ConsoleApi,
  id: string,
  fail: (error: unknown) => HTMLElement,
): Promise<(Node | string)[]> {
  const [campaign, { rounds }] = await Promise.all([
    api.get<CampaignDetail>(`/v1/campaigns/${id}`),
    api.get<{ rounds: RoundSummary[] }>(`/v1/rounds?campaign=${id}`),
  ]);
  const series = seriesSection(api, campaign, fail);
  const schedule =
    campaign.roundEveryMs === null
      ? "rounds opened by the admin"
      : `a round every ${duration(campaign.roundEveryMs)}`;
  const page = [
    h("p", {}, h("a", { href: "#/" }, "← all campaigns")),
    h("h1", {}, "Campaign ", h("span", { class: "id" }, campaign.campaign)),
    h(
      "p",
      {},
      `Created ${time(campaign.createdAt)}; ${schedule}; instantaneous layer: ${campaign.instantEps ?? "none"}.`,
    ),
    planSummary(campaign.plan),
    h(
      "section",
      { "aria-labelledby": "rounds-title" },
      h("h2", { id: "rounds-title" }, "Rounds"),
      rounds.length === 0
        ? notice("empty", "No rounds yet.", "The campaign has opened no round.")
        : roundsTable(`${rounds.length} rounds`, rounds, campaign.roundEveryMs),
    ),
    series.element,
    snippetBlock({
      origin: location.origin,
      plan: campaign.plan,
      target: { campaign: campaign.campaign, instantEps: campaign.instantEps },
    }),
  ];
  if (rounds.length > 0) void series.show();
  return page;
}
