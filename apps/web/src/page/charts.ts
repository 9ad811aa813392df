import type { VegaLiteSpec } from "@calm-ldp/experiments";
import { parse, View } from "vega";
import { compile } from "vega-lite";

/** The views currently shown, by container, so a re-render frees the old one. */
const shown = new WeakMap<HTMLElement, View>();

/**
 * Render a Vega-Lite specification (the same spec functions the CLI renders to
 * SVG files) into `container` as inline SVG, replacing what was there, and set the
 * container's accessible name. Resolves when the view has rendered.
 */
export async function renderVegaLite(
  container: HTMLElement,
  spec: VegaLiteSpec,
  label: string,
): Promise<View> {
  shown.get(container)?.finalize();
  container.replaceChildren();
  const view = new View(parse(compile(spec as never).spec), { renderer: "svg", hover: true });
  view.initialize(container);
  shown.set(container, view);
  await view.runAsync();
  container.setAttribute("aria-label", label);
  return view;
}

/** Remove a rendered view (and its SVG) from `container`, leaving `label` as its accessible name. */
export function clearChart(container: HTMLElement, label: string): void {
  shown.get(container)?.finalize();
  shown.delete(container);
  container.replaceChildren();
  container.setAttribute("aria-label", label);
}
