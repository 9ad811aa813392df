import { groupCategories, summarizeRows } from "@calm-ldp/analyses";
import { capCategories, type LoadedDataset } from "@calm-ldp/datasets";
import { loadDataset } from "@calm-ldp/datasets/node";
import { facetedLinesSpec, type VegaLiteSpec } from "@calm-ldp/experiments";
import {
  type ClassificationRow,
  type IndependenceRow,
  runChowLiu,
  runClassification,
  runIndependenceTests,
} from "@calm-ldp/experiments/analyses";
import type { CustomFigureContext, CustomFigureDefinition } from "./custom-figure.js";

const EPS_CALM = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];
const EPS_QUICK = [0.2, 1.0, 2.0];
const LN3 = Math.log(3);
const SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json";

/** The paper's names for the lines. */
const LABELS: Record<string, string> = {
  calm: "CALM",
  fc: "FC",
  am: "AM",
  ft: "FT",
  inpht: "InpHT",
  margps: "MargPS",
  nonoise: "NoNoise",
  majority: "Majority",
};
const label = (method: string) => LABELS[method] ?? method;
const log2 = (n: number) => (Number.isInteger(Math.log2(n)) ? `2^${Math.log2(n)}` : String(n));

/**
 * The analysis figures' plot: `y` (with its `${y}Std` band) against eps on a
 * linear scale, one line per method label, one panel per (`group`, n) of `rows`
 * (summarized rows). O(rows).
 */
function epsPanelsSpec(
  rows: readonly Record<string, unknown>[],
  group: string,
  y: string,
  yTitle: string,
  { title, columns }: { title: string; columns: number },
): VegaLiteSpec {
  const plotted = rows.map((r) => ({ ...r, panel: `${r[group]}, n=${log2(r.n as number)}` }));
  return facetedLinesSpec(plotted, {
    x: "eps",
    xTitle: "eps",
    y,
    yStd: `${y}Std`,
    yTitle,
    color: "label",
    facet: "panel",
    logY: false,
    title,
    columns,
  });
}

function indexOf(dataset: LoadedDataset, name: string): number {
  const i = dataset.schema.attributes.findIndex((a) => a.name === name);
  if (i < 0) throw new Error(`the data has no attribute ${JSON.stringify(name)}`);
  return i;
}

function progress(context: CustomFigureContext, id: string) {
  const started = performance.now();
  return (done: number, total: number, message: string) =>
    context.log(
      `${id}: ${done}/${total} ${message} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
}

// ---------------------------------------------------------------------------
// CALM Figure 6: classification
// ---------------------------------------------------------------------------

/** The CALM paper's classification features (§5.4) and label. */
const FEATURES = ["age", "workclass", "education", "education-num", "occupation"];
const LABEL = "income";

/**
 * A binary partition that keeps the features' meaning: education as degree /
 * no degree, occupation as white-collar / other; the other attributes by the
 * datasets package's binary rule (numeric at the median, nominal most frequent vs
 * rest).
 */
const GROUPS = {
  education: {
    degree: ["Bachelors", "Masters", "Doctorate", "Prof-school"],
    "no degree": [
      "Some-college",
      "11th",
      "HS-grad",
      "Assoc-acdm",
      "Assoc-voc",
      "9th",
      "7th-8th",
      "12th",
      "1st-4th",
      "10th",
      "5th-6th",
      "Preschool",
    ],
  },
  occupation: {
    "white-collar": ["Exec-managerial", "Prof-specialty", "Adm-clerical", "Sales", "Tech-support"],
    other: [
      "Craft-repair",
      "Other-service",
      "Handlers-cleaners",
      "Machine-op-inspct",
      "Farming-fishing",
      "Transport-moving",
      "Priv-house-serv",
      "Protective-serv",
      "Armed-Forces",
    ],
  },
};

interface Partition {
  name: string;
  load(dataRoot: string): Promise<LoadedDataset>;
}

const PARTITIONS: readonly Partition[] = [
  { name: "binary", load: (root) => loadDataset(`adult:${root}/adult?partition=binary`) },
  { name: "non-binary", load: (root) => loadDataset(`adult:${root}/adult`, { c: 3 }) },
  {
    name: "binary-grouped",
    load: async (root) => {
      const all = await loadDataset(`adult:${root}/adult`);
      const present = Object.fromEntries(
        Object.entries(GROUPS).map(([name, groups]) => {
          const labels = all.schema.attributes.find((a) => a.name === name)?.labels ?? [];
          // keep only categories present in the data (a small file may lack some)
          return [
            name,
            Object.fromEntries(
              Object.entries(groups).map(([g, members]) => [g, members.filter((m) => labels.includes(m))]),
            ),
          ];
        }),
      );
      return capCategories(groupCategories(all, present), 2);
    },
  },
];

const calmFig6: CustomFigureDefinition = {
  id: "calm-fig6",
  paper: "CALM (CCS 2018)",
  title: "CALM Figure 6: SVM misclassification rate vs eps (Adult, d = 15, k = 6)",
  claim:
    "In most cases CALM's misclassification rate is close to NoNoise; at small eps the models trained on FC's and AM's marginals are no better than Majority (sometimes worse than 50%). More users help: with the data duplicated 4x (n = 2^18) CALM is almost optimal from eps = 1.4 (binary), with 16x (n = 2^20) from eps = 0.8; the non-binary partition is slightly worse than the binary one.",
  substitution:
    "US (IPUMS) is not available: only the Adult panels. The paper does not define its partitions: 'binary' and 'non-binary' are the datasets package's (every attribute capped at 2 or 3 categories; nominal ones keep their most frequent categories), and 'binary-grouped' is ours (education degree / no degree, occupation white-collar / other, the rest as 'binary'), added because 'binary' leaves the five features with no information on income. Users are drawn with replacement from the 80% training rows (n = 2^18 and 2^20 stand for the 4x and 16x duplicated data); the test set is the held-out 20% of the real rows. The SVM (libsvm C-SVC, RBF, C = 1, gamma = 1/features, one-hot features) is trained on 2,048 synthetic records drawn from the released 6-way marginal; the paper states neither its SVM settings nor the synthetic set's size.",
  reps: 5,
  takes: { n: true, eps: true },
  async run(context) {
    const ns = context.n ?? (context.quick ? [2 ** 16] : [2 ** 16, 2 ** 18, 2 ** 20]);
    const eps = context.eps ?? (context.quick ? EPS_QUICK : EPS_CALM);
    const methods = ["calm", "calm-plus", "fc", "am", "ft"];
    const trainingRecords = 2048;
    const rows: Record<string, unknown>[] = [];
    for (const partition of PARTITIONS) {
      const population = await partition.load(context.dataRoot);
      const raw: ClassificationRow[] = await runClassification(
        population,
        {
          features: FEATURES.map((name) => indexOf(population, name)),
          label: indexOf(population, LABEL),
          n: ns,
          eps,
          methods,
          reps: context.reps,
          seed: context.seed,
          classify: { trainingRecords },
        },
        { onProgress: progress(context, `calm-fig6 ${partition.name}`) },
      );
      for (const row of summarizeRows(raw, ["method", "n", "eps"], ["misclassification", "seconds"]))
        rows.push({ partition: partition.name, label: label(row.method as string), ...row });
    }
    const spec = epsPanelsSpec(rows, "partition", "misclassification", "misclassification rate", {
      title: calmFig6.title,
      columns: ns.length,
    });
    return {
      rows,
      specs: [spec],
      settings: {
        data: `adult:${context.dataRoot}/adult`,
        partitions: PARTITIONS.map((p) => p.name),
        features: FEATURES,
        label: LABEL,
        d: 15,
        k: 6,
        n: ns,
        eps,
        methods,
        testFraction: 0.2,
        trainingRecords,
        svm: {
          library: "libsvm-js 0.2.1 (libsvm 3.22)",
          type: "C-SVC",
          kernel: "rbf",
          cost: 1,
          gamma: "1/features",
        },
      },
    };
  },
};

// ---------------------------------------------------------------------------
// Cormode et al. Figure 7: chi-square tests
// ---------------------------------------------------------------------------

/** Adult pairs (binary partition): three strongly associated, three nearly independent at n = 2^18. */
const PAIRS: readonly { names: [string, string]; association: "strong" | "weak" }[] = [
  { names: ["marital-status", "relationship"], association: "strong" },
  { names: ["relationship", "sex"], association: "strong" },
  { names: ["education", "education-num"], association: "strong" },
  { names: ["occupation", "native-country"], association: "weak" },
  { names: ["education", "relationship"], association: "weak" },
  { names: ["workclass", "race"], association: "weak" },
];

/** The attributes of the pairs, in file order: d = 9, close to the paper's 8 taxi attributes. */
const FIG7_ATTRIBUTES = [
  "workclass",
  "education",
  "education-num",
  "marital-status",
  "occupation",
  "relationship",
  "race",
  "sex",
  "native-country",
];
const FIG7_SPEC = (root: string) =>
  `adult:${root}/adult?partition=binary&attributes=${FIG7_ATTRIBUTES.join(",")}`;

function statisticsSpec(rows: Record<string, unknown>[], title: string): VegaLiteSpec {
  const values: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const panel = `eps=${(r.eps as number).toFixed(2)}, n=${log2(r.n as number)}`;
    values.push({ panel, pair: r.pair, series: r.label, value: Math.max(r.statistic as number, 1e-3) });
    const key = `${panel}|${r.pair}`;
    if (!seen.has(key)) {
      seen.add(key);
      values.push({
        panel,
        pair: r.pair,
        series: "non-private",
        value: Math.max(r.trueStatistic as number, 1e-3),
      });
    }
  }
  const critical = (rows[0]?.critical as number | undefined) ?? 3.841458820694124;
  return {
    $schema: SCHEMA,
    title,
    data: { values },
    facet: { field: "panel", type: "nominal", title: null },
    columns: 2,
    spec: {
      width: 480,
      height: 260,
      layer: [
        {
          mark: { type: "point", filled: true, size: 70 },
          encoding: {
            x: {
              field: "pair",
              type: "nominal",
              title: null,
              sort: PAIRS.map((p) => `${p.names[0]} x ${p.names[1]}`),
              axis: { labelAngle: -30, labelLimit: 260 },
            },
            y: {
              field: "value",
              type: "quantitative",
              title: "chi-square statistic (mean)",
              scale: { type: "log" },
            },
            color: { field: "series", type: "nominal", title: null, scale: { scheme: "tableau10" } },
            shape: { field: "series", type: "nominal", title: null },
          },
        },
        { mark: { type: "rule", strokeDash: [4, 4], color: "black" }, encoding: { y: { datum: critical } } },
      ],
    },
  };
}

const cormodeFig7: CustomFigureDefinition = {
  id: "cormode-fig7",
  paper: "Cormode et al. (SIGMOD 2018)",
  title: "Cormode et al. Figure 7: chi-square statistics, private vs non-private (N = 2^18, eps = ln 3)",
  claim:
    "Private and non-private chi-square values are close for InpHT in most cases; MargPS often fails to reject independence where the non-private test rejects it (the paper calls this type I) for pairs whose statistic is near the critical value (3.84, 1 degree of freedom, 95%).",
  substitution:
    "The NYC taxi trips (3M rows, 8 binary attributes) are not available (only a 2,000-trip excerpt): Adult under the datasets package's binary partition stands in (45,222 rows, users drawn with replacement; the 9 attributes of the six pairs, close to the paper's d = 8), with three strongly associated pairs and three whose statistic at 2^18 users is near or below the critical value. CALM is added. Type I here = private test rejects where the non-private one (same users) does not; type II = the reverse.",
  reps: 10,
  takes: { n: true, eps: true },
  async run(context) {
    const ns = context.n ?? (context.quick ? [2 ** 16] : [2 ** 18]);
    const eps = context.eps ?? [LN3];
    const methods = ["inpht", "margps", "calm"];
    const population = await loadDataset(FIG7_SPEC(context.dataRoot));
    const pairs = PAIRS.map((p) => p.names.map((name) => indexOf(population, name)) as [number, number]);
    const names = new Map(
      PAIRS.map((p, i) => [
        pairs[i]!.slice()
          .sort((a, b) => a - b)
          .join(","),
        p,
      ]),
    );
    const rows: Record<string, unknown>[] = [];
    for (const n of ns) {
      const raw: IndependenceRow[] = runIndependenceTests(
        population,
        { pairs, n, eps, methods, reps: context.reps, seed: context.seed },
        { onProgress: progress(context, `cormode-fig7 n=${n}`) },
      );
      const named = raw.map((r) => {
        const pair = names.get(r.pair.join(","))!;
        return {
          ...r,
          pair: `${pair.names[0]} x ${pair.names[1]}`,
          association: pair.association,
          noiseAwareUnavailable: r.noiseAwareUnavailable !== undefined,
        };
      });
      for (const row of summarizeRows(
        named,
        ["method", "pair", "association", "n", "eps"],
        [
          "statistic",
          "trueStatistic",
          "critical",
          "reject",
          "trueReject",
          "typeI",
          "typeII",
          "noiseAwareReject",
          "noiseAwareTypeI",
          "noiseAwareTypeII",
          "noiseAwarePValue",
          "noiseAwareUnavailable",
        ],
      ))
        rows.push({ label: label(row.method as string), ...row });
    }
    return {
      rows,
      specs: [statisticsSpec(rows, cormodeFig7.title)],
      settings: {
        data: FIG7_SPEC(context.dataRoot),
        d: FIG7_ATTRIBUTES.length,
        pairs: PAIRS,
        n: ns,
        eps,
        methods,
        alpha: 0.05,
        note: "per pair: statistic = mean private statistic, trueStatistic = mean non-private one; reject, trueReject, typeI, typeII = counts over reps (plug-in test, as in the paper); noiseAwareReject, noiseAwareTypeI, noiseAwareTypeII = the same counts for the noise-aware test (analyses' noiseAwareChiSquare: parametric bootstrap of a Wald statistic under the independence null fitted from the private margins, with the release's covariance), noiseAwarePValue = its mean p-value; noiseAwareUnavailable = reps where it could not run (the release has no covariance for the pair: a CALM pair no view covers, answered by maximum entropy with a bound-based interval)",
      },
    };
  },
};

// ---------------------------------------------------------------------------
// Cormode et al. Figure 8: Chow-Liu trees
// ---------------------------------------------------------------------------

const TREE_DATA = [
  {
    name: "movielens (d=10)",
    spec: (root: string) => `movielens:${root}/movielens/ml-latest-small`,
    d: 10,
  },
  { name: "nltcs (d=16)", spec: (root: string) => `nltcs:${root}/nltcs/nltcs.csv`, d: 16 },
];

const cormodeFig8: CustomFigureDefinition = {
  id: "cormode-fig8",
  paper: "Cormode et al. (SIGMOD 2018)",
  title: "Cormode et al. Figure 8: total true mutual information of the Chow-Liu tree vs eps",
  claim:
    "The total (true) mutual information of trees learnt from InpHT's 2-way marginals is nearly that of the non-private tree; MargPS is less accurate at low eps and catches up as eps grows (movielens, d = 10, 200K users).",
  substitution:
    "MovieLens 20M (top-1,000 movies per genre) is not available: ml-latest-small (610 users, genre flag = rated one of the genre's 10 most-rated movies, first 10 genres) sampled with replacement to N; NLTCS (21,574 x 16) is added. CALM is added. Mutual information in nats.",
  reps: 10,
  takes: { n: true, eps: true },
  async run(context) {
    const ns = context.n ?? (context.quick ? [2 ** 16] : [200_000]);
    const eps = context.eps ?? (context.quick ? [0.4, 1.0, 1.4] : EPS_CALM);
    const methods = ["inpht", "margps", "calm"];
    const rows: Record<string, unknown>[] = [];
    for (const data of TREE_DATA) {
      const population = await loadDataset(data.spec(context.dataRoot), { d: data.d });
      for (const n of ns) {
        const raw = runChowLiu(
          population,
          { n, eps, methods, reps: context.reps, seed: context.seed },
          { onProgress: progress(context, `cormode-fig8 ${data.name} n=${n}`) },
        );
        for (const row of summarizeRows(
          raw,
          ["method", "n", "eps"],
          ["mutualInformation", "optimum", "sharedEdges"],
        ))
          rows.push({ dataset: data.name, label: label(row.method as string), ...row });
      }
    }
    const spec = epsPanelsSpec(rows, "dataset", "mutualInformation", "total true mutual information (nats)", {
      title: cormodeFig8.title,
      columns: 2,
    });
    return {
      rows,
      specs: [spec],
      settings: {
        data: TREE_DATA.map((t) => ({ name: t.name, spec: t.spec(context.dataRoot), d: t.d })),
        n: ns,
        eps,
        methods,
        unit: "nats",
      },
    };
  },
};

/** The analysis figures (`@calm-ldp/analyses`). */
export const ANALYSIS_FIGURES: readonly CustomFigureDefinition[] = [calmFig6, cormodeFig7, cormodeFig8];
