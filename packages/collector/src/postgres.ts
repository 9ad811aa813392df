/**
 * `@calm-ldp/collector/postgres`: the PostgreSQL backend (several collector
 * processes may share one database). Needs the optional peer dependency `pg`.
 */
export { openPostgresStorage, type PostgresStorageOptions } from "./storage/postgres/index.js";
