import { classifyFromMarginal, majorityLabel, misclassificationRate } from "@calm-ldp/analyses/node";
import { type LoadedDataset, sampleUsers } from "@calm-ldp/datasets";
import { fail } from "@calm-ldp/errors";
import { contingencyTable, selectRecords } from "@calm-ldp/marginal-algebra";
import { deriveSeed, repetitionSeed, sampleWithoutReplacement, seededRng } from "@calm-ldp/random";
import { epsStream, methodStream } from "../seed-paths.js";
import type { AnalysisProgress, ClassificationConfig, ClassificationRow } from "./api.js";
import { checkAnalysis } from "./check-analysis.js";
import { methodReleases, secondsSince } from "./release-marginals.js";

/** Stream indices under `deriveSeed(repetitionSeed(config.seed, rep), ...)`. */
const SPLIT = 1;
const USERS = 2;
const NONOISE = 3;
const METHOD = 4;
const TRAIN = 5;

/**
 * The classification experiment of CALM §5.4 (Figure 6). Per repetition, the
 * population's rows are split at random into a held-out test set
 * (`testFraction`, default 20%) and training rows; for every n,
 * `round(n (1 - testFraction))` users are drawn from the training rows (with
 * replacement when there are more users than rows, which is how n = 2^18 and
 * 2^20 stand for the paper's 4x and 16x duplicated data). Every method then
 * releases the marginal over features + label (k = that size unless given) from
 * those users at each eps; a synthetic training set is drawn from it, an SVM is
 * trained on it (`classifyFromMarginal`) and scored on the test rows. Two
 * baselines per (n, repetition), reported at every eps: `nonoise` (the same
 * pipeline on the users' true marginal) and `majority` (always the users'
 * majority label). A method that refuses a setting gets a row with NaN and its
 * error. Seeds (`deriveSeed(repetitionSeed(seed, rep), ...)`, keyed by values, so a result does not
 * depend on which other n, eps or methods run): split `(1)`, users `(2, n)`, NoNoise
 * training set `(3, n)`, method run `(4, n, eps, method)`, its training set
 * `(5, n, eps, method)` (eps in micro-units, the method id hashed).
 * Cost per (n, eps, method): the method's run plus one SVM training (about 0.2 s
 * for the default 2,048 synthetic records).
 */
export async function runClassification(
  population: LoadedDataset,
  config: ClassificationConfig,
  options: AnalysisProgress = {},
): Promise<ClassificationRow[]> {
  const where = "runClassification";
  checkAnalysis(where, config, population);
  const d = population.schema.attributes.length;
  const attributes = [...config.features, config.label].sort((x, y) => x - y);
  attributes.forEach((a, i) => {
    if (!(Number.isInteger(a) && a >= 0 && a < d)) fail(where, `attributes must be indices in [0, ${d})`, a);
    if (i > 0 && attributes[i - 1] === a)
      fail(where, "the features and the label must be distinct", attributes);
  });
  if (population.schema.attributes[config.label]!.labels.length !== 2)
    fail(where, "the label attribute must be binary", population.schema.attributes[config.label]!.name);
  const testFraction = config.testFraction ?? 0.2;
  if (!(testFraction > 0 && testFraction < 1)) fail(where, "testFraction must be in (0, 1)", testFraction);
  const k = config.k ?? attributes.length;
  const rows = population.store.size;
  const testCount = Math.round(rows * testFraction);
  if (testCount < 1 || testCount >= rows) fail(where, "the split must leave test and training rows", rows);
  const total = config.reps * config.n.length * (1 + config.eps.length * config.methods.length);
  let done = 0;
  const progress = (message: string) => options.onProgress?.(++done, total, message);
  const out: ClassificationRow[] = [];
  for (let rep = 0; rep < config.reps; rep++) {
    const testRows = sampleWithoutReplacement(
      seededRng(deriveSeed(repetitionSeed(config.seed, rep), SPLIT)),
      rows,
      testCount,
    );
    const isTest = new Uint8Array(rows);
    for (const r of testRows) isTest[r] = 1;
    const trainRows = new Uint32Array(rows - testCount);
    for (let r = 0, j = 0; r < rows; r++) if (!isTest[r]) trainRows[j++] = r;
    const test = contingencyTable(selectRecords(population.store, testRows), attributes, "count");
    const training: LoadedDataset = { ...population, store: selectRecords(population.store, trainRows) };
    for (const n of config.n) {
      const users = Math.round(n * (1 - testFraction));
      const sample = sampleUsers(
        training,
        users,
        seededRng(deriveSeed(repetitionSeed(config.seed, rep), USERS, n)),
      );
      const truth = contingencyTable(sample.store, attributes);
      const base = { n, rep, users, testRecords: testCount };
      let start = performance.now();
      const majority = majorityLabel(truth, config.label);
      const majorityError = misclassificationRate(
        new Uint8Array(truth.cells.length / 2).fill(majority),
        test,
        config.label,
      );
      const majoritySeconds = (performance.now() - start) / 1000;
      start = performance.now();
      const nonoise = await classifyFromMarginal(
        truth,
        config.label,
        seededRng(deriveSeed(repetitionSeed(config.seed, rep), NONOISE, n)),
        config.classify,
      );
      const nonoiseError = misclassificationRate(nonoise.predictions, test, config.label);
      const nonoiseSeconds = (performance.now() - start) / 1000;
      for (const eps of config.eps) {
        out.push({
          method: "nonoise",
          eps,
          misclassification: nonoiseError,
          seconds: nonoiseSeconds,
          ...base,
        });
        out.push({
          method: "majority",
          eps,
          misclassification: majorityError,
          seconds: majoritySeconds,
          ...base,
        });
      }
      progress(`rep ${rep} n=${n}: NoNoise ${nonoiseError.toFixed(4)}, Majority ${majorityError.toFixed(4)}`);
      for (const run of methodReleases(config, rep, [METHOD, n], sample.store, k, [attributes])) {
        const { eps, method, release } = run;
        let row: ClassificationRow;
        if ("error" in release) {
          row = { method, eps, misclassification: Number.NaN, seconds: 0, error: release.error, ...base };
        } else {
          const classifier = await classifyFromMarginal(
            release.tables[0]!,
            config.label,
            seededRng(
              deriveSeed(repetitionSeed(config.seed, rep), TRAIN, n, epsStream(eps), methodStream(method)),
            ),
            config.classify,
          );
          const error = misclassificationRate(classifier.predictions, test, config.label);
          row = { method, eps, misclassification: error, seconds: secondsSince(run.start), ...base };
        }
        out.push(row);
        progress(
          `rep ${rep} n=${n} eps=${eps} ${method}: ${row.error ? `cannot run (${row.error})` : row.misclassification.toFixed(4)}`,
        );
      }
    }
  }
  return out;
}
