import type { CalmPlan } from "@calm-ldp/calm-core";
import { h } from "./dom.js";

/** What a client snippet needs: this collector's URL and the round or campaign with its plan. */
export interface SnippetInput {
  /** The collector's origin as the page sees it, e.g. `https://collector.example`. */
  readonly origin: string;
  readonly plan: CalmPlan;
  /** A campaign (persistent reporter) or a single round (one report per device). */
  readonly target:
    | { readonly campaign: string; readonly instantEps: number | null }
    | { readonly round: string };
}

/** The record a device passes: one label index per attribute, named in a comment. */
function recordComment(plan: CalmPlan): string {
  const names = plan.schema.attributes.map((a) => `${a.name}: 0..${a.labels.length - 1}`);
  return `// record: one label index per attribute, in order (${names.join(", ")})`;
}

/**
 * The client code for a campaign (`fetchCampaignRound` + `createReporter` with
 * the campaign's id, its instantaneous layer when it has one, and a budget of
 * four times the plan's eps: four changes of a device's record) or for a single
 * round (`fetchPlan` + `createReport` + `sendReports`), with this collector's
 * plan URL. Plain text. O(attributes).
 */
export function clientSnippet(input: SnippetInput): string {
  const { origin, plan, target } = input;
  const url = JSON.stringify(origin);
  if ("campaign" in target) {
    const id = JSON.stringify(target.campaign);
    return [
      'import { createReporter, fetchCampaignRound, indexedDbStorage, sendReports } from "@calm-ldp/client";',
      "",
      `const url = ${url}; // plan: ${origin}/v1/campaigns/${target.campaign}/current`,
      `const { round, plan } = await fetchCampaignRound(url, ${id});`,
      "const reporter = await createReporter({",
      "  plan,",
      '  storage: indexedDbStorage("calm-ldp"),',
      `  maxEps: ${4 * plan.eps}, // the most one device spends in this campaign (eps ${plan.eps} per change of its record)`,
      `  campaign: ${id},`,
      ...(target.instantEps === null ? [] : [`  instantEps: ${target.instantEps},`]),
      "  send: (round, reports) => sendReports(url, round, reports),",
      "});",
      recordComment(plan),
      "const { flush } = await reporter.report(record, { round });",
      "await flush;",
    ].join("\n");
  }
  const id = JSON.stringify(target.round);
  return [
    'import { createReport, fetchPlan, sendReports } from "@calm-ldp/client";',
    "",
    `const url = ${url}; // plan: ${origin}/v1/rounds/${target.round}/plan`,
    `const { plan } = await fetchPlan(url, ${id});`,
    recordComment(plan),
    `await sendReports(url, ${id}, [createReport(plan, record)]);`,
  ].join("\n");
}

/** The snippet in a `pre` with a Copy button (clipboard API; the text stays selectable when it is refused). */
export function snippetBlock(input: SnippetInput): HTMLElement {
  const text = clientSnippet(input);
  const status = h("span", { class: "copy-status", role: "status" });
  const button = h("button", { type: "button", class: "copy" }, "Copy");
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(text).then(
      () => {
        status.textContent = "copied";
      },
      () => {
        status.textContent = "select the text to copy it (the browser refused the clipboard)";
      },
    );
  });
  return h(
    "section",
    { class: "snippet", "aria-labelledby": "snippet-title" },
    h("h2", { id: "snippet-title" }, "Client snippet"),
    h("pre", {}, h("code", { id: "snippet" }, text)),
    button,
    " ",
    status,
  );
}
