import { fraction, s } from "./dom.js";

/** Ten distinguishable colours (Tableau 10). */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];

/** What {@link heatmapSvg} draws: a marginal laid out as rows x columns, with optional intervals. */
export interface HeatmapInput {
  readonly rowLabels: readonly string[];
  readonly colLabels: readonly string[];
  /** Row-major: cell (r, c) is `values[r * cols + c]`. */
  readonly values: readonly number[];
  readonly lower?: readonly number[];
  readonly upper?: readonly number[];
  readonly label: string;
}

/** Light to dark blue for t in [0, 1]. */
function blue(t: number): string {
  const mix = (a: number, b: number) => Math.round(a + (b - a) * Math.min(1, Math.max(0, t)));
  return `rgb(${mix(239, 8)}, ${mix(246, 69)}, ${mix(255, 148)})`;
}

/**
 * A heatmap of a marginal: one cell per entry, shaded by its value (white to dark
 * blue over [0, max]), its value printed, and with intervals a horizontal error
 * bar under it (lower to upper on the cell's own [0, largest upper] scale, a dot
 * at the estimate) and the interval's bounds (clipped to [0, 1], so not always
 * symmetric: no "±"). Inline SVG, no script. O(cells).
 */
export function heatmapSvg(input: HeatmapInput): SVGElement {
  const { rowLabels, colLabels, values, lower, upper } = input;
  const cols = colLabels.length;
  const cellW = 116;
  const cellH = lower ? 66 : 48;
  const left = Math.max(60, 12 + 7 * Math.max(...rowLabels.map((l) => l.length)));
  const top = 28;
  const width = left + cols * cellW + 8;
  const height = top + rowLabels.length * cellH + 8;
  const max = Math.max(1e-12, ...values);
  const scaleMax = Math.max(1e-12, ...(upper ?? values));
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": input.label,
    class: "heatmap",
  });
  colLabels.forEach((label, c) => {
    svg.append(s("text", { x: left + c * cellW + cellW / 2, y: top - 10, "text-anchor": "middle" }, label));
  });
  rowLabels.forEach((label, r) => {
    svg.append(s("text", { x: left - 8, y: top + r * cellH + cellH / 2 + 4, "text-anchor": "end" }, label));
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const x = left + c * cellW;
      const y = top + r * cellH;
      const t = values[i]! / max;
      const ink = t > 0.55 ? "#ffffff" : "#1a1a1a";
      const cell = s(
        "g",
        { class: "cell", "data-cell": i },
        s("rect", { x, y, width: cellW - 2, height: cellH - 2, fill: blue(t) }),
        s(
          "text",
          { x: x + cellW / 2, y: y + 18, "text-anchor": "middle", fill: ink, class: "value" },
          fraction(values[i]!),
        ),
      );
      if (lower && upper) {
        const span = cellW - 20;
        const at = (v: number) => x + 9 + (span * Math.max(0, v)) / scaleMax;
        const barY = y + cellH - 16;
        cell.append(
          s(
            "text",
            { x: x + cellW / 2, y: y + 34, "text-anchor": "middle", fill: ink, class: "interval-text" },
            `[${fraction(lower[i]!)}, ${fraction(upper[i]!)}]`,
          ),
          s("line", {
            x1: at(lower[i]!),
            x2: at(upper[i]!),
            y1: barY,
            y2: barY,
            stroke: ink,
            class: "error-bar",
          }),
          s("line", { x1: at(lower[i]!), x2: at(lower[i]!), y1: barY - 4, y2: barY + 4, stroke: ink }),
          s("line", { x1: at(upper[i]!), x2: at(upper[i]!), y1: barY - 4, y2: barY + 4, stroke: ink }),
          s("circle", { cx: at(values[i]!), cy: barY, r: 2.5, fill: ink }),
        );
      }
      svg.append(cell);
    }
  });
  return svg;
}

/** One line of {@link seriesSvg}: its points, each with an optional interval. */
export interface SeriesLine {
  readonly label: string;
  readonly points: readonly { x: number; y: number; lo?: number; hi?: number }[];
}

/** Round numbers for an axis over [lo, hi]: about `count` of them. */
function ticks(lo: number, hi: number, count: number): number[] {
  const raw = (hi - lo) / count || 1;
  const step = [1, 2, 5, 10].map((m) => m * 10 ** Math.floor(Math.log10(raw))).find((v) => v >= raw)!;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-12; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/**
 * A time series of estimates: x the round index, y the estimate, one coloured
 * line per cell, each point a dot with its interval as a vertical error bar
 * (capped; the lines dodged a few pixels apart at each round); a legend on the right. Inline SVG. O(points).
 */
export function seriesSvg(lines: readonly SeriesLine[], label: string, xTitle: string): SVGElement {
  const width = 780;
  const height = 320;
  const [left, right, top, bottom] = [56, 180, 16, 44];
  const xs = lines.flatMap((line) => line.points.map((p) => p.x));
  const ys = lines.flatMap((line) => line.points.flatMap((p) => [p.y, p.hi ?? p.y, p.lo ?? p.y]));
  const pad = Math.max(0.3, (Math.max(...xs) - Math.min(...xs)) * 0.03);
  const [x0, x1] = [Math.min(...xs) - pad, Math.max(...xs) + pad];
  const y1 = Math.max(1e-9, ...ys) * 1.05;
  const y0 = Math.min(0, ...ys);
  const at = (x: number) => left + ((x - x0) / (x1 - x0)) * (width - left - right);
  const py = (y: number) => top + (1 - (y - y0) / (y1 - y0)) * (height - top - bottom);
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": label,
    class: "series",
  });
  for (const t of ticks(y0, y1, 5))
    svg.append(
      s("line", { x1: left, x2: width - right, y1: py(t), y2: py(t), class: "grid" }),
      s("text", { x: left - 6, y: py(t) + 4, "text-anchor": "end" }, t.toFixed(2)),
    );
  for (const t of ticks(x0, x1, Math.min(10, Math.ceil(x1 - x0))).filter(Number.isInteger))
    svg.append(s("text", { x: at(t), y: height - bottom + 16, "text-anchor": "middle" }, t));
  svg.append(
    s("text", { x: left + (width - left - right) / 2, y: height - 6, "text-anchor": "middle" }, xTitle),
    s("line", { x1: left, x2: width - right, y1: height - bottom, y2: height - bottom, class: "axis" }),
  );
  // Lines side by side around each round (a few pixels apart), so their error bars do not overlap.
  const dodge = Math.min(5, 40 / lines.length);
  lines.forEach((line, k) => {
    const colour = PALETTE[k % PALETTE.length]!;
    const px = (x: number) => at(x) + (k - (lines.length - 1) / 2) * dodge;
    const group = s("g", { class: "line", "data-label": line.label, stroke: colour, fill: colour });
    group.append(
      s("polyline", { points: line.points.map((p) => `${px(p.x)},${py(p.y)}`).join(" "), fill: "none" }),
    );
    for (const p of line.points) {
      if (p.lo !== undefined && p.hi !== undefined) {
        const x = px(p.x);
        group.append(
          s("line", { x1: x, x2: x, y1: py(p.lo), y2: py(p.hi), class: "interval" }),
          s("line", { x1: x - 4, x2: x + 4, y1: py(p.lo), y2: py(p.lo) }),
          s("line", { x1: x - 4, x2: x + 4, y1: py(p.hi), y2: py(p.hi) }),
        );
      }
      group.append(s("circle", { cx: px(p.x), cy: py(p.y), r: 3.5, class: "point" }));
    }
    const ly = top + 10 + k * 18;
    svg.append(
      group,
      s("rect", { x: width - right + 14, y: ly - 8, width: 10, height: 10, fill: colour }),
      s("text", { x: width - right + 30, y: ly + 1 }, line.label),
    );
  });
  return svg;
}
