/**
 * Prometheus text format (0.0.4) read back into samples: `name{a="x",b="y"}`
 * (labels sorted) -> value. Comments and blank lines are skipped; a line that
 * is not a sample fails the test. O(text).
 */
export function parseMetrics(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    const labels = [...(match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, name, value]) => `${name}="${value}"`)
      .sort();
    samples.set(sampleKey(match[1]!, labels), Number(match[3]));
  }
  return samples;
}

function sampleKey(name: string, labels: readonly string[]): string {
  return labels.length === 0 ? name : `${name}{${labels.join(",")}}`;
}

/** The key of a sample with these labels (as `parseMetrics` writes it). */
export function sample(name: string, labels: Record<string, string> = {}): string {
  return sampleKey(
    name,
    Object.entries(labels).map(([key, value]) => `${key}="${value}"`),
  ).replace(/\{(.*)\}/, (_, inner: string) => `{${inner.split(",").sort().join(",")}}`);
}

/** `after - before` of one sample (an absent sample counts 0). */
export function delta(before: Map<string, number>, after: Map<string, number>, key: string): number {
  return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}

/** Every sample of metric `name` by its `label`'s value, as `after - before` (zero deltas left out). */
export function deltasBy(
  before: Map<string, number>,
  after: Map<string, number>,
  name: string,
  label: string,
): Record<string, number> {
  const result: Record<string, number> = {};
  for (const key of after.keys()) {
    if (!key.startsWith(`${name}{`)) continue;
    const value = new RegExp(`${label}="([^"]*)"`).exec(key)?.[1];
    const change = delta(before, after, key);
    if (value !== undefined && change !== 0) result[value] = (result[value] ?? 0) + change;
  }
  return result;
}
