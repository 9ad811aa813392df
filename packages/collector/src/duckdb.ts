/**
 * `@calm-ldp/collector/duckdb`: the DuckDB backend (a database file, one collector
 * process per file). Needs the optional peer dependency `@duckdb/node-api`.
 */
export { type DuckDbStorageOptions, openDuckDbStorage } from "./duckdb-storage.js";
