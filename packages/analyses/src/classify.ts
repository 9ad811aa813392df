import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { ClassifyOptions, FeatureEncoding, MarginalClassifier } from "./api.js";
import { fail } from "./errors.js";
import { sampleMarginal } from "./sample-marginal.js";
import { trainSvm } from "./svm.js";

/** Positions of the label and of the features (every other attribute) in a table. */
function layout(where: string, table: MarginalTable, label: number) {
  const labelPos = table.attributes.indexOf(label);
  if (labelPos < 0) fail(where, `label attribute ${label} must be one of the table's`, table.attributes);
  if (table.cardinalities[labelPos] !== 2)
    fail(where, "the label attribute must be binary", table.cardinalities[labelPos]);
  if (table.attributes.length < 2) fail(where, "the table needs at least one feature", table.attributes);
  const featurePos = table.attributes.map((_, i) => i).filter((i) => i !== labelPos);
  const featureCards = featurePos.map((p) => table.cardinalities[p]!);
  const featureCells = featureCards.reduce((m, c) => m * c, 1);
  return { labelPos, featurePos, featureCards, featureCells };
}

/**
 * The SVM input of one record's categorical features: `"one-hot"` gives c_f
 * indicators per feature (sum of c_f inputs); `"ordinal"` gives v / (c_f - 1) per
 * feature. O(inputs).
 */
export function encodeFeatures(
  values: ArrayLike<number>,
  cardinalities: readonly number[],
  encoding: FeatureEncoding = "one-hot",
): number[] {
  if (encoding !== "one-hot" && encoding !== "ordinal")
    fail("encodeFeatures", 'encoding must be "one-hot" or "ordinal"', encoding);
  const out: number[] = [];
  for (let f = 0; f < cardinalities.length; f++) {
    const c = cardinalities[f]!;
    const v = values[f]!;
    if (encoding === "ordinal") out.push(c > 1 ? v / (c - 1) : 0);
    else for (let x = 0; x < c; x++) out.push(x === v ? 1 : 0);
  }
  return out;
}

/**
 * CALM §5.4's classifier: draw a synthetic training set of `trainingRecords`
 * (default 2048) records from a released marginal over features + a binary label
 * (negative cells count as 0), train an SVM on it (libsvm C-SVC, `trainSvm`;
 * features one-hot encoded by default) and return its prediction for every
 * feature cell (mixed radix over the features in table order), so that a test set
 * is scored from its contingency table alone. A training set with one label only
 * gives that label everywhere (`constant: true`). Cost: the SVM's training on
 * `trainingRecords` records plus |V_features| predictions.
 */
export async function classifyFromMarginal(
  table: MarginalTable,
  label: number,
  rng: Rng,
  options: ClassifyOptions = {},
): Promise<MarginalClassifier> {
  const where = "classifyFromMarginal";
  const { labelPos, featurePos, featureCards, featureCells } = layout(where, table, label);
  const size = options.trainingRecords ?? 2048;
  if (!(Number.isSafeInteger(size) && size >= 2))
    fail(where, "trainingRecords must be an integer >= 2", size);
  const encoding = options.encoding ?? "one-hot";
  const synthetic = sampleMarginal(table, size, rng);
  const columns = synthetic.store.columns;
  const labels = columns[labelPos]!;
  let ones = 0;
  for (let r = 0; r < size; r++) ones += labels[r]!;
  if (ones === 0 || ones === size) {
    return {
      predictions: new Uint8Array(featureCells).fill(ones === 0 ? 0 : 1),
      supportVectors: 0,
      clippedMass: synthetic.clippedMass,
      constant: true,
    };
  }
  const values = new Array<number>(featurePos.length);
  const samples: number[][] = new Array(size);
  for (let r = 0; r < size; r++) {
    for (let f = 0; f < featurePos.length; f++) values[f] = columns[featurePos[f]!]![r]!;
    samples[r] = encodeFeatures(values, featureCards, encoding);
  }
  const model = await trainSvm(samples, labels, options.svm);
  try {
    const predictions = new Uint8Array(featureCells);
    const cell = new Array<number>(featurePos.length).fill(0);
    for (let u = 0; u < featureCells; u++) {
      predictions[u] = model.predict(encodeFeatures(cell, featureCards, encoding));
      for (let f = featurePos.length - 1; f >= 0; f--) {
        if (++cell[f]! < featureCards[f]!) break;
        cell[f] = 0;
      }
    }
    return {
      predictions,
      supportVectors: model.supportVectors,
      clippedMass: synthetic.clippedMass,
      constant: false,
    };
  } finally {
    model.free();
  }
}

/**
 * Fraction of a test set misclassified by per-feature-cell `predictions` (as from
 * `classifyFromMarginal`), computed from the test set's contingency table over the
 * same attributes (counts or fractions): `sum_x T[x, y != pred(x)] / sum T`.
 * O(|V_A|).
 */
export function misclassificationRate(
  predictions: ArrayLike<number>,
  test: MarginalTable,
  label: number,
): number {
  const where = "misclassificationRate";
  const { labelPos, featurePos, featureCells } = layout(where, test, label);
  if (predictions.length !== featureCells)
    fail(where, `predictions must have one entry per feature cell (${featureCells})`, predictions.length);
  const cards = test.cardinalities;
  const k = cards.length;
  const values = new Array<number>(k).fill(0);
  let wrong = 0;
  let total = 0;
  for (let u = 0; u < test.cells.length; u++) {
    const x = test.cells[u]!;
    if (x < 0) fail(where, "test cells must be >= 0", x);
    let featureCell = 0;
    for (const p of featurePos) featureCell = featureCell * cards[p]! + values[p]!;
    total += x;
    if (predictions[featureCell] !== values[labelPos]) wrong += x;
    for (let j = k - 1; j >= 0; j--) {
      if (++values[j]! < cards[j]!) break;
      values[j] = 0;
    }
  }
  if (!(total > 0)) fail(where, "the test table must have positive mass", total);
  return wrong / total;
}

/** The label value with the larger mass in a table containing the (binary) label attribute (ties: 0). O(|V_A|). */
export function majorityLabel(table: MarginalTable, label: number): 0 | 1 {
  const { labelPos } = layout("majorityLabel", table, label);
  const cards = table.cardinalities;
  let after = 1;
  for (let j = labelPos + 1; j < cards.length; j++) after *= cards[j]!;
  const mass = [0, 0];
  for (let u = 0; u < table.cells.length; u++) mass[Math.floor(u / after) % 2] += table.cells[u]!;
  return mass[1]! > mass[0]! ? 1 : 0;
}
