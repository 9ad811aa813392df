import { packageConfig } from "../../tsup.config.base";

// Four entries: the server (no database driver), and one per backend, each importing
// its driver (an optional peer dependency). Shared modules (errors, group commit,
// row decoding) go into chunks all entries of a format use, so `instanceof
// StorageError` holds across entries; `openStorage` loads a backend's entry only
// when called (a dynamic import, `require` in the CommonJS build).
export default packageConfig({
  entry: ["src/index.ts", "src/duckdb.ts", "src/postgres.ts", "src/clickhouse.ts"],
  splitting: true,
});
