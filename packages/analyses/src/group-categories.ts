import type { AttributeInfo, LoadedDataset } from "@calm-ldp/datasets";
import type { Column } from "@calm-ldp/marginal-algebra";
import { fail } from "./errors.js";

/**
 * Regroup the categories of named attributes: `groupings[name]` maps each new
 * label to the old labels it merges (every old label of the attribute in exactly
 * one group; new labels in the order given). E.g. `{ education: { degree:
 * ["Bachelors", "Masters", "Doctorate", "Prof-school"], "no degree": [...the rest] } }`.
 * Other attributes, and the rows, are unchanged; `info` records the rule and a
 * preprocessing step. Returns a new dataset (the input is not modified).
 * O(rows) per regrouped attribute.
 */
export function groupCategories(
  dataset: LoadedDataset,
  groupings: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>,
): LoadedDataset {
  const where = "groupCategories";
  const attributes = dataset.schema.attributes;
  for (const name of Object.keys(groupings))
    if (!attributes.some((a) => a.name === name)) fail(where, "every grouped attribute must exist", name);
  const columns: Column[] = [];
  const schemaAttributes: { name: string; labels: readonly string[] }[] = [];
  const infos: AttributeInfo[] = [];
  const steps: string[] = [];
  attributes.forEach((attribute, i) => {
    const column = dataset.store.columns[i]!;
    const info = dataset.info.attributes[i]!;
    const grouping = groupings[attribute.name];
    if (!grouping) {
      columns.push(column);
      schemaAttributes.push(attribute);
      infos.push(info);
      return;
    }
    const labels = Object.keys(grouping);
    if (labels.length < 2) fail(where, `${attribute.name} needs at least 2 groups`, labels);
    const target = new Int32Array(attribute.labels.length).fill(-1);
    labels.forEach((label, g) => {
      for (const old of grouping[label]!) {
        const v = attribute.labels.indexOf(old);
        if (v < 0) fail(where, `${attribute.name} has no category`, old);
        if (target[v] !== -1) fail(where, `${attribute.name}: a category must be in one group only`, old);
        target[v] = g;
      }
    });
    const missing = attribute.labels.filter((_, v) => target[v] === -1);
    if (missing.length > 0) fail(where, `${attribute.name}: every category must be in a group`, missing);
    const out = new Uint8Array(column.length);
    for (let r = 0; r < column.length; r++) out[r] = target[column[r]!]!;
    columns.push(out);
    schemaAttributes.push({ name: attribute.name, labels });
    const rule = `grouped into ${labels.map((l) => `${l} = {${grouping[l]!.join(", ")}}`).join("; ")}`;
    infos.push({
      ...info,
      kind: "nominal",
      cardinality: labels.length,
      rule: info.rule === "none" ? rule : `${info.rule}; ${rule}`,
    });
    steps.push(`${attribute.name} ${rule}`);
  });
  const schema = { attributes: schemaAttributes };
  return {
    schema,
    store: { schema, size: dataset.store.size, columns },
    info: { ...dataset.info, attributes: infos, preprocessing: [...dataset.info.preprocessing, ...steps] },
  };
}
