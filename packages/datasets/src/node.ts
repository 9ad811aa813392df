export * from "./index.js";
export { loadAdult } from "./node/load-adult.js";
export { type CsvFileOptions, loadCsv } from "./node/load-csv.js";
export { loadDataset } from "./node/load-dataset.js";
export { loadMovielens } from "./node/load-movielens.js";
export { loadMsnbc } from "./node/load-msnbc.js";
export { loadNltcs } from "./node/load-nltcs.js";
export { loadTransactions } from "./node/load-transactions.js";
