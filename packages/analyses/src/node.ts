/**
 * `@calm-ldp/analyses/node`: the classification experiment (CALM §6), Node only.
 * The SVM is libsvm-js, loaded through `createRequire`, which no browser bundle can
 * hold; everything else of the package is in the browser-safe main entry.
 */
export { classifyFromMarginal, encodeFeatures, majorityLabel, misclassificationRate } from "./classify.js";
export { loadLibsvm, trainSvm } from "./svm.js";
