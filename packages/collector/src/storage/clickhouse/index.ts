/**
 * The ClickHouse cluster backend: `openClickHouseStorage` (storage.ts) over
 * one HTTP endpoint per shard (http.ts, rowbinary.ts), tables (schema.ts),
 * per-shard group-commit writers (shard-writer.ts, held-ids.ts), exact counts
 * under copies (write-offs.ts), the cluster URL and placement (url.ts).
 */
export { type ClickHouseStorageOptions, openClickHouseStorage } from "./storage.js";
export { type ClickHouseLocation, parseClickHouseUrl, shardOf } from "./url.js";
