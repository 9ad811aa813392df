import type { SummaryRow } from "./api.js";

/** A Vega-Lite specification (plain JSON), rendered to SVG by the CLI and in the browser by the web demo. */
export type VegaLiteSpec = Record<string, unknown>;

const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

/** Options of {@link errorVsEpsSpec}. */
export interface ErrorVsEpsOptions {
  /** Which error: "sse" (CALM's metric, default) or "tvd" (Cormode et al.'s). */
  metric?: "sse" | "tvd";
  title?: string;
  width?: number;
  height?: number;
}

/**
 * Error vs eps, one line per method, log-scale error axis, error bars of one
 * standard deviation over repetitions (clipped at a tenth of the mean on the log
 * axis, where mean - std would be <= 0). Failed settings are left out. O(rows).
 */
export function errorVsEpsSpec(rows: readonly SummaryRow[], options: ErrorVsEpsOptions = {}): VegaLiteSpec {
  const metric = options.metric ?? "sse";
  const values = rows
    .filter(
      (row) =>
        row.failures < row.reps + row.failures &&
        Number.isFinite(metric === "sse" ? row.sseMean : row.tvdMean),
    )
    .map((row) => {
      const mean = metric === "sse" ? row.sseMean : row.tvdMean;
      const std = metric === "sse" ? row.sseStd : row.tvdStd;
      return {
        method: row.method,
        eps: row.eps,
        mean,
        low: Math.max(mean - std, mean / 10),
        high: mean + std,
      };
    });
  const label =
    metric === "sse" ? "SSE (mean over queries and repetitions)" : "TVD (mean over queries and repetitions)";
  return {
    $schema: SCHEMA,
    title: options.title ?? `${metric.toUpperCase()} vs eps`,
    width: options.width ?? 480,
    height: options.height ?? 320,
    data: { values },
    encoding: {
      x: { field: "eps", type: "quantitative", title: "eps", scale: { zero: false } },
      color: { field: "method", type: "nominal", title: "method", scale: { scheme: "tableau20" } },
    },
    layer: [
      {
        mark: { type: "line", point: true },
        encoding: { y: { field: "mean", type: "quantitative", title: label, scale: { type: "log" } } },
      },
      {
        mark: { type: "errorbar", ticks: true },
        encoding: {
          y: { field: "low", type: "quantitative", title: label, scale: { type: "log" } },
          y2: { field: "high" },
        },
      },
    ],
  };
}

/** One cell of a heatmap: its two coordinates and the value. */
export interface HeatmapCell {
  x: number | string;
  y: number | string;
  value: number;
}

/** Options of {@link heatmapSpec}. */
export interface HeatmapOptions {
  xTitle: string;
  yTitle: string;
  valueTitle?: string;
  title?: string;
  /** Colour scale type (default "log", as error spans orders of magnitude). */
  scale?: "log" | "linear";
  /** Print each cell's value (default true). */
  labels?: boolean;
  /** Cell size in pixels (default 52 x 24). */
  cellWidth?: number;
  cellHeight?: number;
}

/**
 * A heatmap (e.g. SSE over l x m or l x eps, as in the CALM paper's Figure 7, or
 * a true vs estimated marginal table), cells labelled with their values. O(cells).
 */
export function heatmapSpec(cells: readonly HeatmapCell[], options: HeatmapOptions): VegaLiteSpec {
  const scaleType = options.scale ?? "log";
  const layers: Record<string, unknown>[] = [
    {
      mark: "rect",
      encoding: {
        color: {
          field: "value",
          type: "quantitative",
          title: options.valueTitle ?? "value",
          scale: { type: scaleType, scheme: "viridis", reverse: scaleType === "log" },
        },
      },
    },
  ];
  if (options.labels ?? true) {
    // Dark text on light cells, white on dark: with the reversed log scale, large values are dark.
    const finite = cells
      .map((cell) => cell.value)
      .filter((v) => Number.isFinite(v) && (scaleType === "linear" || v > 0));
    const low = finite.length > 0 ? Math.min(...finite) : 0;
    const high = finite.length > 0 ? Math.max(...finite) : 1;
    const middle = scaleType === "log" && low > 0 ? Math.sqrt(low * high) : (low + high) / 2;
    const darkWhenLarge = scaleType === "log";
    layers.push({
      mark: { type: "text", fontSize: 9 },
      encoding: {
        text: { field: "value", type: "quantitative", format: ".1e" },
        color: {
          condition: { test: `datum.value ${darkWhenLarge ? ">" : "<"} ${middle}`, value: "white" },
          value: "black",
        },
      },
    });
  }
  return {
    $schema: SCHEMA,
    title: options.title ?? "",
    data: { values: cells.map((cell) => ({ ...cell })) },
    width: { step: options.cellWidth ?? 52 },
    height: { step: options.cellHeight ?? 24 },
    encoding: {
      x: { field: "x", type: "ordinal", title: options.xTitle, axis: { labelAngle: 0 } },
      y: { field: "y", type: "ordinal", title: options.yTitle, sort: "descending" },
    },
    layer: layers,
  };
}

/** Options of {@link facetedLinesSpec}. */
export interface FacetedLinesOptions {
  /** Field on the x axis and its title. */
  x: string;
  xTitle: string;
  /** Field on the y axis (a mean), optional spread field (a standard deviation), and the title. */
  y: string;
  yStd?: string;
  yTitle: string;
  /** Field that colours the lines (e.g. "series"). */
  color: string;
  /** Field that splits the chart into panels (e.g. "panel"). */
  facet: string;
  logX?: boolean;
  logY?: boolean;
  title?: string;
  columns?: number;
}

/**
 * Small multiples: one panel per value of `facet`, one line per value of `color`,
 * y on a log axis by default, with error bars of one standard deviation when
 * `yStd` is given. For the paper figures (error vs eps, N, k or k' per dataset
 * setting). Rows with a non-finite y are left out. O(rows).
 */
export function facetedLinesSpec(
  rows: readonly Record<string, unknown>[],
  options: FacetedLinesOptions,
): VegaLiteSpec {
  const logY = options.logY ?? true;
  const values: Record<string, unknown>[] = rows
    .filter((row) => Number.isFinite(row[options.y] as number) && (!logY || (row[options.y] as number) > 0))
    .map((row) => {
      const mean = row[options.y] as number;
      const std = options.yStd ? ((row[options.yStd] as number) ?? 0) : 0;
      return { ...row, __low: logY ? Math.max(mean - std, mean / 10) : mean - std, __high: mean + std };
    });
  const yScale = logY ? { type: "log" } : {};
  const layers: Record<string, unknown>[] = [
    {
      mark: { type: "line", point: true },
      encoding: { y: { field: options.y, type: "quantitative", title: options.yTitle, scale: yScale } },
    },
  ];
  if (options.yStd) {
    layers.push({
      mark: { type: "errorbar", ticks: true },
      encoding: {
        y: { field: "__low", type: "quantitative", title: options.yTitle, scale: yScale },
        y2: { field: "__high" },
      },
    });
  }
  return {
    $schema: SCHEMA,
    title: options.title ?? "",
    data: { values },
    facet: {
      field: options.facet,
      type: "nominal",
      title: null,
      // Panels in the order they first appear in the rows (the figure's own order), not alphabetically.
      sort: [...new Set(values.map((row) => String(row[options.facet])))],
    },
    columns: options.columns ?? 3,
    resolve: { scale: { y: "independent" } },
    spec: {
      width: 260,
      height: 190,
      encoding: {
        x: {
          field: options.x,
          type: "quantitative",
          title: options.xTitle,
          scale: options.logX ? { type: "log", base: 2 } : { zero: false },
          // On a log axis, tick exactly at the x values that were run (N = 2^16, 2^17, ...).
          ...(options.logX
            ? { axis: { values: [...new Set(values.map((row) => row[options.x] as number))] } }
            : {}),
        },
        color: { field: options.color, type: "nominal", title: null, scale: { scheme: "tableau20" } },
      },
      layer: layers,
    },
  };
}
