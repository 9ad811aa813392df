import type { CollectorStorage } from "./api.js";
import { openClickHouseStorage } from "./clickhouse-storage.js";
import { openDuckDbStorage } from "./duckdb-storage.js";
import { InvalidParameterError } from "./errors.js";
import { openPostgresStorage } from "./postgres-storage.js";

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
 */
export function openStorage(location: StorageLocation): Promise<CollectorStorage> {
  if ("clickhouse" in location) return openClickHouseStorage(location.clickhouse);
  if ("postgres" in location) {
    if (!/^postgres(ql)?:\/\//.test(location.postgres))
      throw new InvalidParameterError(
        `openStorage: postgres must be a postgres:// URL (got ${JSON.stringify(location.postgres.split("@").pop())})`,
      );
    return openPostgresStorage(location.postgres);
  }
  if (typeof location.duckdb !== "string" || location.duckdb === "")
    throw new InvalidParameterError("openStorage: duckdb must be a file path");
  return openDuckDbStorage(location.duckdb);
}
