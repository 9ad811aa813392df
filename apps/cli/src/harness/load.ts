import { type LoadedDataset, parseDataSpec } from "@calm-ldp/datasets";
import { loadDataset } from "@calm-ldp/datasets/node";

/**
 * The population an experiment samples from: for file data, every row loaded
 * once (first d attributes, categories capped at c); synthetic data is generated
 * per repetition instead, so nothing is loaded.
 */
export async function loadPopulation(
  spec: string,
  d: number,
  c?: number,
): Promise<LoadedDataset | undefined> {
  const parsed = parseDataSpec(spec);
  if (parsed.kind === "synthetic-iid" || parsed.kind === "synthetic-bn") return undefined;
  return loadDataset(parsed, { d, ...(c !== undefined ? { c } : {}) });
}
