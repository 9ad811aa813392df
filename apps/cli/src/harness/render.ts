import type { VegaLiteSpec } from "@calm-ldp/experiments";
import { parse, View } from "vega";
import { compile } from "vega-lite";

/** Render a Vega-Lite specification to an SVG document, headless (no browser, no canvas). */
export async function renderSvg(spec: VegaLiteSpec): Promise<string> {
  const view = new View(parse(compile(spec as never).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
