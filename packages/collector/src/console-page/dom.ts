/** A child of {@link h}: a node, text, or nothing (skipped). */
export type Child = Node | string | number | null | undefined | false;

/**
 * An HTML element with attributes and children. Text goes in as text nodes,
 * never as markup, so names and labels from the collector cannot inject HTML.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined) element.setAttribute(name, value);
  append(element, children);
  return element;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (numbers written as given) and children. */
export function s(
  tag: string,
  attributes: Record<string, string | number> = {},
  ...children: Child[]
): SVGElement {
  const element = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  append(element, children);
  return element;
}

function append(parent: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === "number" ? String(child) : child);
  }
}

/** An integer with thousands separators (`12,345`). */
export const count = (value: number): string => value.toLocaleString("en-US");

/** A fraction to 4 decimals (how the console prints every estimate and bound). */
export const fraction = (value: number): string => value.toFixed(4);

/** An ISO time as `2026-11-28 06:40:26Z` (UTC, to the second), or the dash for null. */
export const time = (iso: string | null): string =>
  iso === null ? "—" : `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;

/** A duration in ms as `90 s`, `15 min`, `2 h` or `1 d` (the largest whole unit). */
export function duration(ms: number): string {
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["min", 60_000],
  ] as const)
    if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms / 1000} s`;
}

/** A table from a header row and body rows (cells as children). */
export function table(
  caption: string,
  head: readonly string[],
  rows: readonly HTMLTableRowElement[],
  attributes: Record<string, string> = {},
): HTMLTableElement {
  return h(
    "table",
    attributes,
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...head.map((name) => h("th", { scope: "col" }, name)))),
    h("tbody", {}, ...rows),
  );
}

/** A table row; each cell a `td` (strings and nodes) tagged `data-field` when named. */
export function row(
  attributes: Record<string, string | undefined>,
  cells: readonly (readonly [field: string | undefined, content: Child])[],
): HTMLTableRowElement {
  return h("tr", attributes, ...cells.map(([field, content]) => h("td", { "data-field": field }, content)));
}

/** A short notice: `kind` empty (nothing to show yet) or error (something failed). */
export function notice(kind: "empty" | "error", title: string, text: string): HTMLElement {
  return h(
    "div",
    { class: `notice ${kind}`, role: kind === "error" ? "alert" : "note", "data-state": kind },
    h("strong", {}, title),
    " ",
    text,
  );
}
