import type { RoundStatus } from "./api.js";
import { count, h, row, table } from "./dom.js";
import { term } from "./plan-view.js";

/** A flag of round status in words: which view or views, the statistic and the threshold it passed. */
function flagText(flag: RoundStatus["flags"][number]): string {
  if (flag.kind === "view-balance")
    return `view ${flag.view}: ${count(flag.reports)} reports, expected ${flag.expected.toFixed(1)} (z = ${flag.z.toFixed(2)}, beyond ±${flag.threshold.toFixed(2)})`;
  return `ones of unary views ${flag.views.join(", ")} off honest: chi-square ${flag.chiSquare.toFixed(2)} > ${flag.threshold.toFixed(2)}`;
}

/** A row per (reason, view) with dropped reports (every reason the counters hold), in reason order. */
function droppedRows(dropped: Readonly<Record<string, readonly number[]>>): HTMLTableRowElement[] {
  return Object.entries(dropped)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([reason, perView]) =>
      [...perView.entries()]
        .filter(([, n]) => n > 0)
        .map(([view, n]) =>
          row({ "data-reason": reason, "data-view": String(view) }, [
            ["reason", reason],
            ["view", String(view)],
            ["reports", count(n)],
          ]),
        ),
    );
}

/**
 * The round's defences (protected mode, or the unary check switched on): reports
 * the per-report unary check dropped (acknowledged, not stored) in all, with its
 * false-positive rate, and per reason and view; and the statistical flags (view
 * balance, unary ones), each with its statistic and threshold. Empty (nothing
 * rendered) for a round with neither the check nor a flag. O(views + flags).
 */
export function defencesSection(status: RoundStatus): HTMLElement | "" {
  const dropped = status.dropped ?? {};
  const rows = droppedRows(dropped);
  if (status.unaryDropped === undefined && rows.length === 0 && status.flags.length === 0) return "";
  const unary = status.unaryDropped;
  return h(
    "section",
    { "aria-labelledby": "defences-title", class: "defences" },
    h("h2", { id: "defences-title" }, "Defences"),
    h(
      "dl",
      { class: "facts" },
      ...(unary
        ? term(
            "dropped (unary check)",
            `${count(unary.reports)} (honest reports dropped at most ${unary.alpha * 100}%)`,
            "unaryDropped",
          )
        : []),
      ...term("flags", status.flags.length === 0 ? "none" : count(status.flags.length), "flagCount"),
    ),
    rows.length === 0
      ? ""
      : table("Dropped reports by reason and view", ["Reason", "View", "Reports"], rows, {
          class: "dropped",
        }),
    status.flags.length === 0
      ? ""
      : h(
          "ul",
          { class: "flags" },
          ...status.flags.map((flag, i) =>
            h("li", { "data-flag": flag.kind, "data-index": String(i) }, flagText(flag)),
          ),
        ),
  );
}
