import { packageConfig } from "../../tsup.config.base";

// Four entries: the server (no database driver), and one per backend, each importing
// its driver (an optional peer dependency). Shared modules (errors, group commit,
// row decoding) go into chunks all entries of a format use, so `instanceof
// StorageError` holds across entries; `openStorage` loads a backend's entry only
// when called (a dynamic import, `require` in the CommonJS build).
// shims: the CJS build gets `import.meta.url` (console-route.ts finds the console's bundle with it).
// The operator console (src/console-page) is built by Vite into dist/console after tsup
// (scripts/build-console.ts, the package's build script).
export default packageConfig({
  entry: ["src/index.ts", "src/duckdb.ts", "src/postgres.ts", "src/clickhouse.ts"],
  splitting: true,
  shims: true,
});
