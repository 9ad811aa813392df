import type { RoundState } from "../api.js";
import type { RoundSummary } from "./api.js";
import { count, duration, h, row, s, table, time } from "./dom.js";

/** A round's state in words: open, closed, or closed with its report ids dropped. */
export function stateText(state: RoundState): string {
  if (state.closedAt === null) return "open";
  return state.idsDroppedAt === null ? "closed" : "closed, ids dropped";
}

/** Refusals by reason as `malformed-json 3, round-closed 2`, or `none`. */
export function refusedText(rejected: Readonly<Record<string, number>>): string {
  const entries = Object.entries(rejected)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length === 0 ? "none" : entries.map(([reason, n]) => `${reason} ${count(n)}`).join(", ");
}

/**
 * Reports per view as small bars (one per view, scaled to the largest) and
 * `min–max`: users pick their view uniformly, so a view far below the others
 * means clients that do not (or an attacker choosing views).
 */
export function balance(perView: readonly number[]): HTMLElement {
  const min = perView.length === 0 ? 0 : Math.min(...perView);
  const top = perView.length === 0 ? 0 : Math.max(...perView);
  const max = Math.max(1, top); // the bars' scale
  const width = Math.min(160, 6 * perView.length);
  const bars = s(
    "svg",
    {
      width,
      height: 18,
      viewBox: `0 0 ${width} 18`,
      role: "img",
      "aria-label": `reports per view: ${perView.join(", ")}`,
    },
    ...perView.map((n, v) =>
      s("rect", {
        x: (v * width) / perView.length,
        y: 18 - (16 * n) / max,
        width: Math.max(1, width / perView.length - 1),
        height: (16 * n) / max,
        class: "bar",
      }),
    ),
  );
  return h("span", { class: "balance" }, bars, ` ${count(min)}–${count(top)}`);
}

/** The window of a round: opened – closed, or until its scheduled end, or open. */
export function windowText(round: RoundSummary, roundEveryMs: number | null): string {
  if (round.closedAt !== null) return `${time(round.createdAt)} – ${time(round.closedAt)}`;
  if (roundEveryMs !== null)
    return `${time(round.createdAt)} – ${time(new Date(Date.parse(round.createdAt) + roundEveryMs).toISOString())} (every ${duration(roundEveryMs)})`;
  return `${time(round.createdAt)} – (open)`;
}

/** A link to a round's page (`#/rounds/<id>`, with its campaign when it has one). */
export function roundLink(round: string, campaign: string | null): HTMLAnchorElement {
  const query = campaign === null ? "" : `?campaign=${campaign}`;
  return h("a", { href: `#/rounds/${round}${query}`, class: "id" }, round);
}

/**
 * The rounds table of the overview and of a campaign page: per round its state,
 * window, reports accepted, duplicates, refused by reason, the per-view balance and
 * the report ids it holds. Cells carry `data-field` and rows `data-round`.
 */
export function roundsTable(
  caption: string,
  rounds: readonly RoundSummary[],
  roundEveryMs: number | null,
): HTMLTableElement {
  const rows = rounds.map((round) =>
    row({ "data-round": round.round }, [
      ["index", round.index === null ? "—" : String(round.index)],
      ["round", roundLink(round.round, round.campaign)],
      ["state", stateText(round)],
      ["window", windowText(round, roundEveryMs)],
      ["accepted", count(round.accepted)],
      ["duplicates", count(round.duplicates)],
      ["refused", refusedText(round.rejected)],
      ["balance", balance(round.perView)],
      ["idsHeld", count(round.idsHeld)],
    ]),
  );
  return table(
    caption,
    [
      "#",
      "Round",
      "State",
      "Window",
      "Accepted",
      "Duplicates",
      "Refused by reason",
      "Reports per view",
      "Ids held",
    ],
    rows,
    { class: "rounds" },
  );
}
