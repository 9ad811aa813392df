import type { ExperimentConfig } from "@calm-ldp/experiments";
import { binomialCoefficient } from "@calm-ldp/random";

/** One experiment of a figure: a panel, a line (series) and, when the x axis is not eps, its x value. */
export interface FigureRun {
  panel: string;
  /** Appended to the method id to name the line (e.g. "k'=6"); empty for plain method lines. */
  series?: string;
  /** x value when the figure's x axis is not eps (n, k, k', l). */
  x?: number;
  /** Second coordinate for heatmaps (m or eps). */
  y?: number;
  config: ExperimentConfig;
}

/** A paper figure and how to reproduce it here. */
export interface FigureDefinition {
  id: string;
  paper: "CALM (CCS 2018)" | "Cormode et al. (SIGMOD 2018)";
  title: string;
  /** What the paper shows, in its own terms. */
  claim: string;
  /** Datasets of the paper that are not available here and what stands in for them. */
  substitution?: string;
  metric: "sse" | "tvd";
  /** The x axis: eps, or one of the run's x values. */
  x: "eps" | "n" | "k" | "kPrime" | "l";
  xTitle: string;
  plot: "lines" | "heatmap";
  yTitle?: string;
  /** Default repetitions (the paper's). */
  reps: number;
  runs(context: FigureContext): FigureRun[];
}

/** What a figure's runs depend on. */
export interface FigureContext {
  dataRoot: string;
  reps: number;
  seed: number;
  /** Method ids the harness knows; figures keep only these (and say which were dropped). */
  available: readonly string[];
  /** Fewer eps values and settings, for a smoke run. */
  quick: boolean;
}

const EPS_CALM = [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0];
const EPS_CALM_QUICK = [0.2, 1.0, 2.0];
const LN3 = Math.log(3);

/** The fields every CALM line figure shares (SSE over eps, the paper's 20 repetitions). */
const CALM_SSE_LINES = {
  paper: "CALM (CCS 2018)",
  metric: "sse",
  x: "eps",
  xTitle: "eps",
  plot: "lines",
  reps: 20,
} as const;

/** The fields every Cormode et al. figure shares (TVD lines, the paper's 10 repetitions). */
const CORMODE_TVD_LINES = {
  paper: "Cormode et al. (SIGMOD 2018)",
  metric: "tvd",
  plot: "lines",
  reps: 10,
} as const;

/** The methods of Cormode et al.'s figures; `runFigure` drops (and reports) any the registry lacks. */
const CORMODE_METHODS = ["inpht", "marght", "margps", "margrr", "inprr", "inpps"] as const;

/** The transaction data standing in for CALM's POS and Kosarak (see calm-fig4's substitution). */
const bmsSpec = (dataRoot: string) => `transactions:${dataRoot}/bms_webview/BMS1.dat`;
const transactionData = (dataRoot: string) => [
  { name: "retail (for POS)", spec: `transactions:${dataRoot}/retail/retail.dat` },
  { name: "BMS-WebView-1 (for Kosarak)", spec: bmsSpec(dataRoot) },
];
const movielensSpec = (dataRoot: string) => `movielens:${dataRoot}/movielens/ml-latest-small`;

/** A Cormode et al. run: all k-way queries, their methods, e^eps = 3 unless given. */
function cormodeConfig(
  setting: { data: string; n: number; d: number; k: number; eps?: number[] },
  { reps, seed }: FigureContext,
): ExperimentConfig {
  const { data, n, d, k, eps = [LN3] } = setting;
  return { data, n, d, k, eps, methods: [...CORMODE_METHODS], queries: "all", reps, seed };
}

/** A CALM-only figure's runs: none when the harness has no "calm". */
function whenCalm(runs: (context: FigureContext) => FigureRun[]): (context: FigureContext) => FigureRun[] {
  return (context) => (context.available.includes("calm") ? runs(context) : []);
}
function binaryPanels(quick: boolean) {
  const all = [
    { n: 2 ** 16, d: 8, k: 3 },
    { n: 2 ** 16, d: 16, k: 3 },
    { n: 2 ** 16, d: 32, k: 3 },
    { n: 2 ** 18, d: 16, k: 6 },
    { n: 2 ** 18, d: 32, k: 6 },
    { n: 2 ** 18, d: 32, k: 8 },
  ];
  return quick ? all.slice(0, 2) : all;
}

const log2 = (n: number) => Math.log2(n);

/** A CALM-only run (Figures 7-9): 50 random queries, the figure's reps and seed, and CALM's options if any. */
function calmOnly(
  setting: { data: string; n: number; d: number; k: number; eps: number[] },
  reps: number,
  seed: number,
  calm?: Record<string, number>,
): ExperimentConfig {
  return {
    ...setting,
    methods: ["calm"],
    queries: 50,
    reps,
    seed,
    ...(calm ? { methodOptions: { calm } } : {}),
  };
}

export const FIGURES: readonly FigureDefinition[] = [
  {
    id: "calm-fig4",
    ...CALM_SSE_LINES,
    title: "CALM Figure 4: SSE vs eps on binary (transaction) data",
    claim:
      "CALM is below every other method everywhere, by one to two orders of magnitude below FT (its closest competitor) for d >= 16; at eps = 0.2 the other methods are near Uni while CALM is not. POS, n = 2^16, d = 16, k = 3, eps = 0.2: CALM 0.0055 vs FT 0.2266.",
    substitution:
      "POS and Kosarak are not available here (docs/reproduction.md; datasets README): retail (FIMI market baskets, 88,162 users) stands in for POS and BMS-WebView-1 (click streams, 59,602 users) for Kosarak, both sampled with replacement to n.",
    runs: ({ dataRoot, reps, seed, quick }) =>
      transactionData(dataRoot).flatMap(({ name, spec }) =>
        binaryPanels(quick).map(({ n, d, k }) => ({
          panel: `${name}: n=2^${log2(n)}, d=${d}, k=${k}`,
          config: {
            data: spec,
            n,
            d,
            k,
            eps: quick ? EPS_CALM_QUICK : EPS_CALM,
            methods: ["calm", "fc", "am", "ft", "em", "uni"],
            queries: 50,
            reps,
            seed,
          },
        })),
      ),
  },
  {
    id: "calm-fig5",
    ...CALM_SSE_LINES,
    title: "CALM Figure 5: SSE vs eps on non-binary data (Adult, at most 3 categories per attribute)",
    claim:
      "CALM is one to two orders of magnitude below the other methods; FT is worse than FC and AM on non-binary data (binary encoding inflates it); BE (CALM on the binary encoding) is worse than CALM.",
    substitution: "US (IPUMS census) is not available here: only the Adult panels are reproduced.",
    runs: ({ dataRoot, reps, seed, quick }) =>
      [
        { d: 8, k: 3 },
        { d: 15, k: 3 },
        { d: 15, k: 6 },
      ]
        .slice(0, quick ? 1 : 3)
        .map(({ d, k }) => ({
          panel: `Adult: n=2^16, d=${d}, k=${k}`,
          config: {
            data: `adult:${dataRoot}/adult`,
            n: 2 ** 16,
            d,
            k,
            c: 3,
            eps: quick ? EPS_CALM_QUICK : EPS_CALM,
            methods: ["calm", "calm-plus", "fc", "am", "ft", "be", "uni"],
            queries: 50,
            reps,
            seed,
          },
        })),
  },
  {
    id: "calm-fig7",
    paper: "CALM (CCS 2018)",
    title: "CALM Figure 7: SSE over view size l x number of views m (eps = 0.6), and l x eps (m = 16)",
    claim:
      "At eps = 0.6, for l other than 1 and 8, SSE falls as m grows (more coverage, less reconstruction error); l = 1 and l = 8 do not improve with m. With m fixed, small l is best at small eps and larger l at larger eps.",
    substitution: "retail stands in for POS and BMS-WebView-1 for Kosarak (see calm-fig4).",
    metric: "sse",
    x: "l",
    xTitle: "view size l",
    plot: "heatmap",
    reps: 20,
    runs: whenCalm(({ dataRoot, reps, seed, quick }) => {
      const ls = quick ? [1, 2, 4, 8] : [1, 2, 3, 4, 5, 6, 7, 8];
      const ms = quick ? [2, 8, 32] : [1, 2, 4, 8, 16, 32];
      const epsGrid = quick ? [0.2, 1.0, 2.0] : EPS_CALM;
      const runs: FigureRun[] = [];
      for (const { name, spec } of transactionData(dataRoot)) {
        for (const l of ls) {
          for (const m of ms) {
            const views = Math.min(m, binomialCoefficient(8, l));
            runs.push({
              panel: `${name}: l x m, eps=0.6`,
              x: l,
              y: views,
              config: calmOnly({ data: spec, n: 2 ** 16, d: 8, k: 3, eps: [0.6] }, reps, seed, {
                l,
                m: views,
              }),
            });
          }
          runs.push({
            panel: `${name}: l x eps, m=16`,
            x: l,
            config: calmOnly({ data: spec, n: 2 ** 16, d: 8, k: 3, eps: epsGrid }, reps, seed, {
              l,
              m: Math.min(16, binomialCoefficient(8, l)),
            }),
          });
        }
      }
      return runs;
    }),
  },
  {
    id: "calm-fig8",
    ...CALM_SSE_LINES,
    title: "CALM Figure 8: answering k-way queries with l, m chosen for k'",
    claim:
      "Optimising for k' = k is generally best; for k = 3 the choice of k' hardly matters; for k = 6 and 8, k' = 3 is worse at eps around 1.2-1.8 (it switches to l = 3 earlier). (The paper's centralized PriView line is not reproduced: it is not an LDP method.)",
    substitution: "BMS-WebView-1 stands in for Kosarak.",
    runs: whenCalm(({ dataRoot, reps, seed, quick }) => {
      const spec = bmsSpec(dataRoot);
      const settings = quick
        ? [{ n: 2 ** 16, d: 16, k: 3 }]
        : [
            { n: 2 ** 16, d: 16, k: 3 },
            { n: 2 ** 18, d: 16, k: 6 },
            { n: 2 ** 18, d: 32, k: 8 },
          ];
      return settings.flatMap(({ n, d, k }) =>
        [3, 6, 8].map((kPrime) => ({
          panel: `BMS-WebView-1: n=2^${log2(n)}, d=${d}, k=${k}`,
          series: `k'=${kPrime}`,
          config: calmOnly({ data: spec, n, d, k, eps: quick ? EPS_CALM_QUICK : EPS_CALM }, reps, seed, {
            planForK: kPrime,
          }),
        })),
      );
    }),
  },
  {
    id: "calm-fig9",
    paper: "CALM (CCS 2018)",
    title: "CALM Figure 9: SSE vs query size k (n = 2^18, d = 16), parameters for k' = 3 or k' = k",
    claim:
      "The two settings mostly coincide (same l, m); at eps = 1.5 and k > 7, k' = k is clearly worse than k' = 3 (l = 2 instead of 3).",
    substitution: "BMS-WebView-1 stands in for Kosarak.",
    metric: "sse",
    x: "k",
    xTitle: "query size k",
    plot: "lines",
    reps: 20,
    runs: whenCalm(({ dataRoot, reps, seed, quick }) => {
      const spec = bmsSpec(dataRoot);
      const ks = quick ? [1, 3, 6] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
      const epsList = quick ? [1.0] : [0.5, 1.0, 1.5, 2.0];
      const runs: FigureRun[] = [];
      for (const eps of epsList) {
        for (const k of ks) {
          const setting = { data: spec, n: 2 ** 18, d: 16, k, eps: [eps] };
          const panel = `eps=${eps}`;
          runs.push({ panel, series: "k'=3", x: k, config: calmOnly(setting, reps, seed, { planForK: 3 }) });
          runs.push({ panel, series: "k'=k", x: k, config: calmOnly(setting, reps, seed) });
        }
      }
      return runs;
    }),
  },
  {
    id: "cormode-fig4",
    ...CORMODE_TVD_LINES,
    title: "Cormode et al. Figure 4: mean TVD of all k-way marginals vs N (movielens, e^eps = 3)",
    claim:
      "Error falls like 1/sqrt(N) for every method; InpHT is lowest (or near) everywhere; InpPS decays fast with d; MargPS beats MargRR.",
    substitution:
      "The paper uses MovieLens 20M (top-1000 movies per genre); here ml-latest-small (610 users, top-10 movies per genre, see the datasets README), sampled with replacement to N.",
    x: "n",
    xTitle: "N (users)",
    runs: (context) => {
      const { dataRoot, quick } = context;
      const ds = quick ? [4, 8] : [4, 8, 16];
      const ks = quick ? [2] : [1, 2, 3];
      const ns = quick ? [2 ** 16, 2 ** 18] : [2 ** 16, 2 ** 17, 2 ** 18, 2 ** 19];
      return ds.flatMap((d) =>
        ks.flatMap((k) =>
          ns.map((n) => ({
            panel: `d=${d}, k=${k}`,
            x: n,
            config: cormodeConfig({ data: movielensSpec(dataRoot), n, d, k }, context),
          })),
        ),
      );
    },
  },
  {
    id: "cormode-fig5",
    ...CORMODE_TVD_LINES,
    title: "Cormode et al. Figure 5: mean TVD vs k (N = 2^18, e^eps = 3, d = 8)",
    claim:
      "InpHT is the method of choice for k <= d/2 and stays competitive beyond; the others degrade faster as k grows.",
    substitution:
      "The paper uses NYC taxi data (3M trips, 8 binary attributes); only a 2,000-trip excerpt is here, so MovieLens genre flags (ml-latest-small, d = 8) stand in.",
    x: "k",
    xTitle: "k",
    runs: (context) =>
      (context.quick ? [1, 3, 5] : [1, 2, 3, 4, 5, 6, 7]).map((k) => ({
        panel: "movielens, d=8",
        x: k,
        config: cormodeConfig({ data: movielensSpec(context.dataRoot), n: 2 ** 18, d: 8, k }, context),
      })),
  },
  {
    id: "cormode-fig9",
    ...CORMODE_TVD_LINES,
    title: "Cormode et al. Figure 9: mean TVD vs eps (N = 2^18 movielens users)",
    claim:
      "Error falls with eps; InpPS, InpRR and MargRR are poor for k >= 2; InpHT is best everywhere, then MargPS and MargHT.",
    substitution:
      "ml-latest-small genre flags (610 users, top-10 movies per genre) sampled with replacement to N = 2^18.",
    x: "eps",
    xTitle: "eps",
    runs: (context) => {
      const { dataRoot, quick } = context;
      const eps = quick ? [0.4, 1.0, 1.4] : [0.4, 0.6, 0.8, 1.0, 1.2, 1.4];
      return (quick ? [4, 8] : [4, 8, 16]).flatMap((d) =>
        (quick ? [2] : [1, 2, 3]).map((k) => ({
          panel: `d=${d}, k=${k}`,
          config: cormodeConfig({ data: movielensSpec(dataRoot), n: 2 ** 18, d, k, eps }, context),
        })),
      );
    },
  },
];
