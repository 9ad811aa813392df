/**
 * `@calm-ldp/collector/clickhouse`: the ClickHouse cluster backend (one HTTP
 * endpoint per shard). Needs the optional peer dependency `@clickhouse/client`.
 */
export {
  type ClickHouseLocation,
  type ClickHouseStorageOptions,
  openClickHouseStorage,
  parseClickHouseUrl,
  shardOf,
} from "./storage/clickhouse/index.js";
