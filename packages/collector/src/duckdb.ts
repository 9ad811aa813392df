/**
 * `@calm-ldp/collector/duckdb`: the DuckDB backend (a database file, one collector
 * process per file). Needs the optional peer dependency `@duckdb/node-api`.
 */
export { type DuckDbStorageOptions, openDuckDbStorage } from "./storage/duckdb/index.js";
