export {
  ADULT_ATTRIBUTES,
  ADULT_CLASSIFICATION_ATTRIBUTES,
  type AdultParser,
  createAdultParser,
  parseAdult,
} from "./adult.js";
export type * from "./api.js";
export { randomBayesNetwork } from "./bayes-network.js";
export { createBinaryMatrixParser, type LineParser, parseBinaryMatrix } from "./binary-matrix.js";
export { type CapOptions, capCategories } from "./cap-categories.js";
export { type CsvParser, createCsvParser, parseCsv } from "./csv.js";
export { splitCsvLine } from "./csv-fields.js";
export { parseCsvSchema } from "./csv-schema.js";
export { DATA_SPEC_KINDS, formatDataSpec, parseDataSpec } from "./data-spec.js";
export { DataSpecError, DatasetFileError, MalformedDataError } from "./errors.js";
export { generateBayesNet } from "./generate-bayes-net.js";
export { generateFromSpec, NETWORK_STREAM, RECORD_STREAM, SAMPLE_STREAM } from "./generate-from-spec.js";
export { generateIid } from "./generate-iid.js";
export { createIntLineTokenizer, type IntLineHandlers, type IntLineTokenizer } from "./int-line-tokenizer.js";
export { createLineSplitter, forEachLine, type LineHandler, type LineSplitter } from "./line-splitter.js";
export {
  createMovielensParser,
  ML100K_GENRES,
  type MovielensOptions,
  type MovielensParser,
} from "./movielens.js";
export { createMsnbcParser, MSNBC_CATEGORIES, type MsnbcParser, parseMsnbc } from "./msnbc.js";
export { sampleBayesNetwork } from "./sample-bayes-network.js";
export { sampleUsers } from "./sample-users.js";
export { selectAttributes } from "./select-attributes.js";
export {
  type BytePass,
  createTransactionCounter,
  createTransactionEncoder,
  parseTransactions,
  type TransactionCounts,
  topItems,
  transactionDataset,
} from "./transactions.js";
