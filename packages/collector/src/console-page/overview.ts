import type { CampaignSummary, ConsoleApi, RoundSummary } from "./api.js";
import { count, duration, h, notice, row, table, time } from "./dom.js";
import { roundLink, roundsTable } from "./rounds-table.js";

/** The campaigns table: id, creation, privacy parameters, schedule, rounds and the open round. */
function campaignsTable(campaigns: readonly CampaignSummary[]): HTMLTableElement {
  const rows = campaigns.map((c) =>
    row({ "data-campaign": c.campaign }, [
      ["campaign", h("a", { href: `#/campaigns/${c.campaign}`, class: "id" }, c.campaign)],
      ["createdAt", time(c.createdAt)],
      ["eps", String(c.eps)],
      ["k", String(c.k)],
      ["m", String(c.m)],
      ["schedule", c.roundEveryMs === null ? "opened by the admin" : `every ${duration(c.roundEveryMs)}`],
      ["rounds", count(c.rounds)],
      ["openRound", c.openRound === null ? "none" : roundLink(c.openRound, c.campaign)],
    ]),
  );
  return table(
    "Campaigns",
    ["Campaign", "Created", "eps", "k", "Views", "Schedule", "Rounds", "Open round"],
    rows,
    { class: "campaigns" },
  );
}

/**
 * The overview (`#/`): every campaign and every round outside campaigns, with an
 * empty state for each when there is none. Two admin calls, made at once.
 */
export async function renderOverview(api: ConsoleApi): Promise<(Node | string)[]> {
  const [{ campaigns }, { rounds }] = await Promise.all([
    api.get<{ campaigns: CampaignSummary[] }>("/v1/campaigns"),
    api.get<{ rounds: RoundSummary[] }>("/v1/rounds?campaign=none"),
  ]);
  return [
    h("h1", {}, "Campaigns and rounds"),
    h(
      "section",
      { "aria-label": "campaigns" },
      campaigns.length === 0
        ? notice(
            "empty",
            "No campaigns yet.",
            "Create one with `calm-ldp collector campaign` or POST /v1/campaigns; it shows here with its rounds.",
          )
        : campaignsTable(campaigns),
    ),
    h(
      "section",
      { "aria-label": "rounds outside campaigns" },
      rounds.length === 0
        ? notice("empty", "No rounds outside campaigns.", "Rounds created with POST /v1/rounds show here.")
        : roundsTable("Rounds outside campaigns", rounds, null),
    ),
  ];
}
