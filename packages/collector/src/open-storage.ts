import { CannotRunError } from "@calm-ldp/errors";
import type { CollectorStorage } from "./api.js";
import { InvalidParameterError } from "./errors.js";

/** Where to keep the data: a DuckDB file, a PostgreSQL connection URL, or a ClickHouse cluster URL. */
export type StorageLocation =
  | { readonly duckdb: string }
  | { readonly postgres: string }
  | { readonly clickhouse: string };

/**
 * Open the storage a location names: DuckDB in a file (the embedded default; one
 * collector process per file) or PostgreSQL (`postgres://user:password@host:port/db`;
 * several collector processes may share it) or a ClickHouse cluster
 * (`http://host:port,host:port/database?cluster=name`, one HTTP endpoint per shard;
 * see `openClickHouseStorage`). Creates the tables when absent.
 *
 * Each backend is its own entry point (`@calm-ldp/collector/duckdb`, `/postgres`,
 * `/clickhouse`) with its database driver as an optional peer dependency; this
 * function imports only the one the location names, when it is called. A driver
 * that is not installed is a `CannotRunError` naming the package to install.
 */
export async function openStorage(location: StorageLocation): Promise<CollectorStorage> {
  if ("clickhouse" in location) {
    const { openClickHouseStorage } = await loadBackend(
      "ClickHouse",
      "@clickhouse/client",
      () => import("./clickhouse.js"),
    );
    return openClickHouseStorage(location.clickhouse);
  }
  if ("postgres" in location) {
    if (!/^postgres(ql)?:\/\//.test(location.postgres))
      throw new InvalidParameterError(
        `openStorage: postgres must be a postgres:// URL (got ${JSON.stringify(location.postgres.split("@").pop())})`,
      );
    const { openPostgresStorage } = await loadBackend("PostgreSQL", "pg", () => import("./postgres.js"));
    return openPostgresStorage(location.postgres);
  }
  if (typeof location.duckdb !== "string" || location.duckdb === "")
    throw new InvalidParameterError("openStorage: duckdb must be a file path");
  const { openDuckDbStorage } = await loadBackend("DuckDB", "@duckdb/node-api", () => import("./duckdb.js"));
  return openDuckDbStorage(location.duckdb);
}

/**
 * @internal Import a backend's entry point; when that fails because its driver
 * package `driver` cannot be found (Node's `ERR_MODULE_NOT_FOUND` /
 * `MODULE_NOT_FOUND` naming it), throw a `CannotRunError` saying what to install.
 * Any other failure is rethrown as it is.
 */
export async function loadBackend<T>(backend: string, driver: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!driverMissing(error, driver)) throw error;
    throw new CannotRunError(
      `the ${backend} storage needs its database driver "${driver}", an optional peer dependency of @calm-ldp/collector that is not installed: install it next to the collector (npm install ${driver})`,
      { cause: error },
    );
  }
}

/** Whether `error` is a module-not-found error about the package `driver` (not about another module). */
function driverMissing(error: unknown, driver: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return error.message.includes(`'${driver}'`) || error.message.includes(`"${driver}"`);
}
