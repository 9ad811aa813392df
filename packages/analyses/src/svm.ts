import { createRequire } from "node:module";
import type { SvmModel, SvmOptions } from "./api.js";
import { fail } from "./errors.js";

/** The parts of libsvm-js's `SVM` class used here. */
interface LibsvmInstance {
  train(samples: number[][], labels: number[]): void;
  predictOne(sample: ArrayLike<number>): number;
  getSVIndices(): number[];
  free(): void;
}
interface LibsvmClass {
  new (options: Record<string, unknown>): LibsvmInstance;
  readonly KERNEL_TYPES: Readonly<Record<string, string>>;
  readonly SVM_TYPES: Readonly<Record<string, string>>;
}
interface EmscriptenModule {
  load(): Promise<void>;
}

let loading: Promise<LibsvmClass> | undefined;

/**
 * Load libsvm (the `libsvm-js` package: libsvm 3.22 compiled to WebAssembly by
 * its maintainers, mljs) once per process; later calls return the same promise.
 * Three of the Emscripten module's Node side effects are undone or hidden: the
 * `unhandledRejection` listener it installs (it would `process.exit(1)` on any
 * unhandled rejection anywhere in the process) is removed, and its two-line
 * "wasm streaming compile failed ... falling back to ArrayBuffer instantiation"
 * notice (Node's fetch cannot read a file path; the fallback reads the file) is
 * not printed. Loading takes about 0.1 s.
 */
export function loadLibsvm(): Promise<LibsvmClass> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const listeners = new Set(process.listeners("unhandledRejection"));
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      const text = String(args[0] ?? "");
      if (text.startsWith("wasm streaming compile failed") || text.startsWith("falling back to ArrayBuffer"))
        return;
      warn(...args);
    };
    try {
      const wasm = require("libsvm-js/out/wasm/libsvm.js") as EmscriptenModule;
      const bind = require("libsvm-js/src/loadSVM.js") as (module: EmscriptenModule) => LibsvmClass;
      for (const listener of process.listeners("unhandledRejection"))
        if (!listeners.has(listener)) process.off("unhandledRejection", listener);
      await wasm.load();
      return bind(wasm);
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}

const KERNELS = { linear: "LINEAR", rbf: "RBF", polynomial: "POLYNOMIAL" } as const;

function positive(where: string, name: string, value: number | undefined): number | undefined {
  if (value !== undefined && !(Number.isFinite(value) && value > 0))
    fail(where, `${name} must be a finite number > 0`, value);
  return value;
}

/**
 * Train a C-SVC support vector machine with libsvm (through `libsvm-js`, see
 * {@link loadLibsvm}) on `samples` (one numeric feature vector each, all the same
 * length) with integer `labels`. Defaults are libsvm's: RBF kernel, C = 1,
 * gamma = 1 / features, tolerance 0.001, 100 MB kernel cache, shrinking on.
 * Training is deterministic (libsvm's C-SVC draws no random numbers). Cost is
 * libsvm's SMO: between O(n^2) and O(n^3) kernel evaluations of O(features) each
 * (about 0.2 s for 2,048 one-hot Adult records, 0.85 s for 4,096; see the README). The model holds
 * WebAssembly memory: call `free()` when done.
 */
export async function trainSvm(
  samples: readonly ArrayLike<number>[],
  labels: ArrayLike<number>,
  options: SvmOptions = {},
): Promise<SvmModel> {
  const where = "trainSvm";
  if (!samples || !(samples.length > 0)) fail(where, "samples must be a non-empty array", samples);
  if (labels.length !== samples.length)
    fail(where, `labels must have one entry per sample (${samples.length})`, labels.length);
  const features = samples[0]!.length;
  if (!(features >= 1)) fail(where, "samples must have at least one feature", features);
  const rows: number[][] = samples.map((sample, i) => {
    if (sample.length !== features) fail(where, `sample ${i} must have ${features} features`, sample.length);
    const row = Array.from(sample);
    for (const x of row) if (!Number.isFinite(x)) fail(where, `sample ${i} features must be finite`, x);
    return row;
  });
  const ys = Array.from(labels);
  for (const y of ys) if (!Number.isInteger(y)) fail(where, "labels must be integers", y);
  const kernel = options.kernel ?? "rbf";
  if (!(kernel in KERNELS)) fail(where, 'kernel must be "linear", "rbf" or "polynomial"', kernel);
  const degree = options.degree ?? 3;
  if (!(Number.isInteger(degree) && degree >= 1)) fail(where, "degree must be an integer >= 1", degree);
  const SVM = await loadLibsvm();
  const svm = new SVM({
    type: SVM.SVM_TYPES.C_SVC,
    kernel: SVM.KERNEL_TYPES[KERNELS[kernel]],
    cost: positive(where, "cost", options.cost) ?? 1,
    gamma: positive(where, "gamma", options.gamma) ?? 1 / features,
    degree,
    tolerance: positive(where, "tolerance", options.tolerance) ?? 0.001,
    cacheSize: positive(where, "cacheSize", options.cacheSize) ?? 100,
    shrinking: true,
    quiet: true,
  });
  svm.train(rows, ys);
  const supportVectors = svm.getSVIndices().length;
  let freed = false;
  return {
    features,
    supportVectors,
    predict(sample) {
      if (freed) fail("SvmModel.predict", "the model was freed", "free()");
      if (sample.length !== features)
        fail("SvmModel.predict", `sample must have ${features} features`, sample.length);
      return svm.predictOne(Array.from(sample));
    },
    free() {
      if (!freed) svm.free();
      freed = true;
    },
  };
}
