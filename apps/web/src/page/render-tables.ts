import type { DatasetInfo } from "@calm-ldp/datasets";
import type { MethodRun, SummaryRow } from "@calm-ldp/experiments";
import type { CalmPlanSummary, InspectedTable } from "./api.js";
import type { TableLayout } from "./heatmaps.js";

/** A number for people: 4 significant digits, exponent form when small or large. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return "–";
  if (x === 0) return "0";
  const magnitude = Math.abs(x);
  return magnitude >= 1e-3 && magnitude < 1e4 ? x.toPrecision(4) : x.toExponential(3);
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  attributes: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function table(caption: string, header: string[], rows: HTMLTableRowElement[]): HTMLTableElement {
  const node = element("table");
  node.append(element("caption", caption));
  const head = element("thead");
  const headRow = element("tr");
  for (const cell of header) headRow.append(element("th", cell, { scope: "col" }));
  head.append(headRow);
  const body = element("tbody");
  body.append(...rows);
  node.append(head, body);
  return node;
}

/**
 * The summary as a table, one row per method and one column per eps: the mean
 * error over repetitions (SSE or TVD) with its standard deviation, then the mean
 * seconds per repetition over the eps and the method's plan facts. A refused or
 * failed setting says so (the error in its title). Each cell carries its
 * full-precision numbers as data attributes (`data-method`, `data-eps`,
 * `data-sse`, `data-tvd`, `data-seconds`). O(rows).
 */
export function summaryTable(
  rows: readonly SummaryRow[],
  runs: readonly MethodRun[],
  metric: "sse" | "tvd",
): HTMLTableElement {
  const methods = [...new Set(rows.map((row) => row.method))];
  const epsValues = [...new Set(rows.map((row) => row.eps))].sort((a, b) => a - b);
  const byKey = new Map(rows.map((row) => [`${row.method} ${row.eps}`, row]));
  const details = new Map<string, string>();
  for (const run of runs) {
    if (run.rep !== 0 || !run.details || run.method === "calm" || details.has(run.method)) continue;
    details.set(
      run.method,
      Object.entries(run.details)
        .map(([key, value]) => `${key}=${value}`)
        .join(" "),
    );
  }
  const name = metric.toUpperCase();
  return table(
    `${name} per method (rows) and ε (columns): mean ± standard deviation over repetitions. Time: seconds per repetition (plan + perturbation + estimation + answering), mean over ε.`,
    ["method", ...epsValues.map((eps) => `ε = ${eps}`), "s / rep", "plan (first ε)"],
    methods.map((method) => {
      const tr = element("tr");
      tr.append(element("th", method, { scope: "row" }));
      let seconds = 0;
      let count = 0;
      for (const eps of epsValues) {
        const row = byKey.get(`${method} ${eps}`);
        if (!row) {
          tr.append(element("td", "…"));
          continue;
        }
        seconds += row.seconds;
        count++;
        const mean = metric === "sse" ? row.sseMean : row.tvdMean;
        const std = metric === "sse" ? row.sseStd : row.tvdStd;
        const td = element("td", undefined, {
          "data-method": row.method,
          "data-eps": String(row.eps),
          "data-sse": String(row.sseMean),
          "data-tvd": String(row.tvdMean),
          "data-seconds": String(row.seconds),
        });
        if (row.reps === 0) {
          td.textContent = "refused";
          td.className = "failure";
          td.title = row.error ?? "";
        } else {
          td.append(formatNumber(mean), element("span", ` ± ${formatNumber(std)}`, { class: "std" }));
          if (row.failures > 0) {
            td.append(
              element("span", ` (${row.failures} failed)`, { class: "failure", title: row.error ?? "" }),
            );
          }
        }
        tr.append(td);
      }
      tr.append(element("td", count > 0 ? (seconds / count).toFixed(3) : "…"));
      tr.append(
        element("td", details.get(method) ?? (method === "calm" ? "see CALM's plan" : ""), { class: "plan" }),
      );
      return tr;
    }),
  );
}

/** CALM's plans, one line per eps, with the views in a disclosure. */
export function planList(plans: readonly CalmPlanSummary[], names: readonly string[]): HTMLElement {
  const list = element("ul", undefined, { class: "plans" });
  for (const plan of [...plans].sort((a, b) => a.eps - b.eps)) {
    const oracles = new Map<string, number>();
    for (const view of plan.views) oracles.set(view.oracle, (oracles.get(view.oracle) ?? 0) + 1);
    const item = element("li", undefined, {
      "data-eps": String(plan.eps),
      "data-l": String(plan.l),
      "data-m": String(plan.m),
    });
    item.append(
      element("strong", `ε = ${plan.eps}: `),
      `l = ${plan.l}, m = ${plan.m} view${plan.m === 1 ? "" : "s"}${plan.covering ? " (cover every k-subset)" : ""}; oracles ${[
        ...oracles,
      ]
        .map(([oracle, count]) => `${oracle.toUpperCase()} × ${count}`)
        .join(", ")}`,
    );
    const views = element("details");
    views.append(element("summary", plan.views.length === 1 ? "the view" : `the ${plan.views.length} views`));
    views.append(
      element(
        "p",
        plan.views
          .map(
            (view) =>
              `{${view.attributes.map((a) => names[a] ?? String(a)).join(", ")}} ${view.oracle.toUpperCase()}`,
          )
          .join("; "),
        { class: "views" },
      ),
    );
    item.append(views);
    list.append(item);
  }
  return list;
}

/**
 * The interval column's text per cell: "lower – upper (± half-width)" at 3
 * decimals, or "–" for every cell when the estimate has no interval. O(cells).
 */
export function intervalTexts(inspected: InspectedTable): string[] {
  const interval = inspected.interval;
  if (!interval) return inspected.estimate.map(() => "–");
  return interval.lower.map((lower, i) => {
    const upper = interval.upper[i]!;
    return `${lower.toFixed(3)} – ${upper.toFixed(3)} (± ${((upper - lower) / 2).toFixed(3)})`;
  });
}

/**
 * The inspected marginal's cells as a table: cell, true, estimated, its 95%
 * interval (when the method gives one; else the caption says why), difference;
 * the caption gives the marginal's SSE and TVD. Full precision in `data-*`
 * (`data-lower`, `data-upper` with an interval). O(cells).
 */
export function marginalNumbers(inspected: InspectedTable, layout: TableLayout): HTMLTableElement {
  const intervals = intervalTexts(inspected);
  const level = inspected.interval ? `${Math.round(inspected.interval.level * 100)}% interval` : "interval";
  let sse = 0;
  let l1 = 0;
  const rows = inspected.truth.map((truth, i) => {
    const { x, y } = layout.position(i);
    const estimate = inspected.estimate[i]!;
    sse += (estimate - truth) ** 2;
    l1 += Math.abs(estimate - truth);
    const bounds: Record<string, string> = inspected.interval
      ? {
          "data-lower": String(inspected.interval.lower[i]),
          "data-upper": String(inspected.interval.upper[i]),
        }
      : {};
    const tr = element("tr", undefined, {
      "data-truth": String(truth),
      "data-estimate": String(estimate),
      ...bounds,
    });
    tr.append(
      element("th", `${layout.xTitle} = ${x}${layout.yTitle ? `, ${layout.yTitle} = ${y}` : ""}`, {
        scope: "row",
      }),
      element("td", truth.toFixed(4)),
      element("td", estimate.toFixed(4)),
      element("td", intervals[i]!),
      element("td", (estimate - truth).toFixed(4)),
    );
    return tr;
  });
  const why = inspected.interval
    ? `; ${level}s: ${
        inspected.interval.method === "bounds"
          ? "bound-based (no view covers this marginal: the covered parts' Fréchet bounds widened by their noise, conservative)"
          : inspected.interval.method
      }`
    : inspected.noInterval
      ? `; no interval: ${inspected.noInterval}`
      : "";
  const node = table(
    `${inspected.method} at ε = ${inspected.eps}: SSE ${formatNumber(sse)}, TVD ${formatNumber(l1 / 2)}${why}`,
    ["cell", "true", "estimated", level, "difference"],
    rows,
  );
  node.dataset.sse = String(sse);
  node.dataset.tvd = String(l1 / 2);
  return node;
}

/** One line about the data: source, population and users per repetition, attributes and their categories. */
export function datasetLine(info: DatasetInfo): string {
  const attributes = info.attributes.map((a) => `${a.name} (${a.cardinality})`).join(", ");
  const sampling = info.sampling;
  const users = sampling
    ? `${sampling.n} users per repetition drawn from ${sampling.population} rows (${sampling.method.replace(/-/g, " ")})`
    : `${info.rows} records generated per repetition`;
  return `Data: ${info.source}; ${users}; attributes ${attributes}.`;
}
