import {
  type ConsoleApi,
  ConsoleApiError,
  type MarginalAnswer,
  type RoundPlan,
  type RoundStatus,
} from "./api.js";
import { LEVEL } from "./campaign-view.js";
import { heatmapSvg } from "./charts.js";
import { defencesSection } from "./defences-view.js";
import { count, fraction, h, notice, row, table, time } from "./dom.js";
import { attributePicker, attrsParam, cellLabels, defaultAttributes, marginalLayout } from "./marginal.js";
import { planSummary, term } from "./plan-view.js";
import { refusedText, stateText } from "./rounds-table.js";
import { snippetBlock } from "./snippet.js";

/** The round's counters and lifecycle: state, reports, refusals by reason, ids held and when they go. */
function statusSection(status: RoundStatus): HTMLElement {
  const reasons = Object.entries(status.rejected).sort(([a], [b]) => (a < b ? -1 : 1));
  const ids =
    status.idsDroppedAt !== null
      ? `dropped at ${time(status.idsDroppedAt)}`
      : status.idsDropAfter !== null
        ? `kept until ${time(status.idsDropAfter)} (retention after closing)`
        : "kept while the round is open";
  return h(
    "section",
    { "aria-labelledby": "status-title" },
    h("h2", { id: "status-title" }, "Status"),
    h(
      "dl",
      { class: "facts" },
      ...term("state", stateText(status), "state"),
      ...term("closed at", time(status.closedAt), "closedAt"),
      ...term("reports accepted", count(status.accepted), "accepted"),
      ...term("duplicates", count(status.duplicates), "duplicates"),
      ...term("refused", refusedText(status.rejected), "refused"),
      ...term("report ids held", count(status.idsHeld), "idsHeld"),
      ...term("report ids", ids, "ids"),
    ),
    reasons.length === 0
      ? ""
      : table(
          "Refused reports by reason",
          ["Reason", "Reports"],
          reasons.map(([reason, n]) =>
            row({ "data-reason": reason }, [
              ["reason", reason],
              ["reports", count(n)],
            ]),
          ),
          { class: "refusals" },
        ),
  );
}

/**
 * The close button with its confirmation: a first click asks (what closing does),
 * "Close round now" posts `POST /v1/rounds/:id/close` and re-renders the page.
 */
function closeControl(
  api: ConsoleApi,
  round: string,
  rerender: () => void,
  fail: (error: unknown) => HTMLElement,
) {
  const area = h("div", { class: "close", id: "close-area" });
  const ask = h("button", { type: "button", id: "close-round" }, "Close round…");
  const confirmBox = () => {
    const yes = h("button", { type: "button", id: "confirm-close", class: "danger" }, "Close round now");
    const no = h("button", { type: "button", id: "cancel-close" }, "Cancel");
    yes.addEventListener("click", () => {
      yes.disabled = true;
      api.post(`/v1/rounds/${round}/close`).then(rerender, (error) => area.replaceChildren(fail(error)));
    });
    no.addEventListener("click", () => area.replaceChildren(ask));
    area.replaceChildren(
      h(
        "div",
        { role: "alertdialog", "aria-labelledby": "close-question", class: "confirm" },
        h(
          "p",
          { id: "close-question" },
          "Close this round? Every later report is refused (409 round-closed); its counts stay, and its report ids are dropped after the retention time.",
        ),
        yes,
        " ",
        no,
      ),
    );
    yes.focus();
  };
  ask.addEventListener("click", confirmBox);
  area.append(ask);
  return area;
}

/** A marginal of the round: heatmap (with error bars when there are intervals) and its numbers. */
function marginalView(
  answer: MarginalAnswer,
  plan: RoundPlan["plan"],
  note: string | undefined,
): (Node | string)[] {
  const labels = cellLabels(plan, answer.attributes);
  const layout = marginalLayout(plan, answer.attributes);
  const rows = answer.cells.map((value, c) =>
    row({ "data-cell": String(c) }, [
      ["cell", labels[c]!],
      ["estimate", fraction(value)],
      ["lower", answer.lower ? fraction(answer.lower[c]!) : "—"],
      ["upper", answer.upper ? fraction(answer.upper[c]!) : "—"],
    ]),
  );
  return [
    h(
      "p",
      {},
      `${answer.attrs.join(" × ")}: ${answer.estimator}, ${answer.method}, n = ${count(answer.n)}`,
      answer.intervalMethod ? `, ${LEVEL * 100}% ${answer.intervalMethod} intervals` : "",
      answer.expectedSse === null ? "" : `, expected SSE ${answer.expectedSse.toExponential(2)}`,
    ),
    heatmapSvg({
      ...layout,
      values: answer.cells,
      ...(answer.lower && answer.upper ? { lower: answer.lower, upper: answer.upper } : {}),
      label: `estimated marginal of ${answer.attrs.join(", ")}`,
    }),
    note ? notice("empty", "No interval:", note) : "",
    table("Estimated cells", ["Cell", "Estimate", "Lower", "Upper"], rows, { class: "marginal-table" }),
  ];
}

/** The marginals section: attributes, estimator (calm with intervals, or calm-plus), Show, the heatmap. */
function marginalSection(api: ConsoleApi, plan: RoundPlan, fail: (error: unknown) => HTMLElement) {
  const picker = attributePicker(plan.plan, defaultAttributes(plan.plan), plan.plan.k);
  const estimator = h(
    "select",
    { id: "estimator", name: "estimator" },
    h("option", { value: "calm" }, "calm (with 95% intervals)"),
    h("option", { value: "calm-plus" }, "calm-plus (no interval)"),
  );
  const output = h("div", { id: "marginal", class: "chart" });
  const show = async () => {
    const attributes = picker.selected();
    if (attributes.length === 0)
      return output.replaceChildren(notice("error", "Pick an attribute.", "A marginal needs at least one."));
    const base = `/v1/rounds/${plan.round}/marginals?attrs=${attrsParam(plan.plan, attributes)}&estimator=${estimator.value}`;
    output.replaceChildren(h("p", { class: "loading" }, "loading…"));
    output.dataset.state = "loading";
    try {
      let note: string | undefined;
      let answer: MarginalAnswer;
      try {
        answer = await api.get<MarginalAnswer>(
          estimator.value === "calm" ? `${base}&interval=${LEVEL}` : base,
        );
      } catch (error) {
        if (!(error instanceof ConsoleApiError) || error.reason !== "interval-unavailable") throw error;
        note = error.message;
        answer = await api.get<MarginalAnswer>(base);
      }
      output.replaceChildren(...marginalView(answer, plan.plan, note));
      output.dataset.state = "ready";
    } catch (error) {
      output.replaceChildren(fail(error));
      output.dataset.state = "error";
    }
  };
  const form = h(
    "form",
    { class: "query" },
    picker.element,
    h("label", {}, "Estimator ", estimator),
    h("button", { type: "submit" }, "Show"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void show();
  });
  const element = h(
    "section",
    { "aria-labelledby": "marginal-title" },
    h("h2", { id: "marginal-title" }, "Released marginal"),
    form,
    output,
  );
  return { element, show };
}

/**
 * A round's page (`#/rounds/<id>[?campaign=<id>]`): its status (with the close
 * button while open), its defences (dropped reports, flags; defences-view.ts), its plan with reports per view, a released marginal as a
 * heatmap with error bars (empty state when the round has no reports) and the
 * client snippet (the campaign's when the round belongs to one).
 */
export async function renderRound(
  api: ConsoleApi,
  id: string,
  campaign: string | null,
  rerender: () => void,
  fail: (error: unknown) => HTMLElement,
): Promise<(Node | string)[]> {
  const [status, plan] = await Promise.all([
    api.get<RoundStatus>(`/v1/rounds/${id}/status`),
    api.get<RoundPlan>(`/v1/rounds/${id}/plan`),
  ]);
  const marginal = marginalSection(api, plan, fail);
  const page = [
    h(
      "p",
      {},
      campaign
        ? h("a", { href: `#/campaigns/${campaign}` }, "← its campaign")
        : h("a", { href: "#/" }, "← all campaigns"),
    ),
    h("h1", {}, "Round ", h("span", { class: "id" }, id)),
    statusSection(status),
    defencesSection(status),
    status.closedAt === null ? closeControl(api, id, rerender, fail) : "",
    planSummary(plan.plan, status.perView),
    status.accepted === 0
      ? h(
          "section",
          { "aria-labelledby": "marginal-title" },
          h("h2", { id: "marginal-title" }, "Released marginal"),
          notice("empty", "No reports yet.", "This round has no reports: there is nothing to estimate."),
        )
      : marginal.element,
    campaign
      ? h(
          "p",
          { class: "snippet-link" },
          "Devices report to the campaign's open round: the client snippet is on ",
          h("a", { href: `#/campaigns/${campaign}` }, "the campaign's page"),
          ".",
        )
      : snippetBlock({ origin: location.origin, plan: plan.plan, target: { round: id } }),
  ];
  if (status.accepted > 0) void marginal.show();
  return page;
}
