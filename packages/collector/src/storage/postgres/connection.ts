import type pg from "pg";
import { RoundClosedError, StorageError } from "../../errors.js";

/** SQLSTATEs worth retrying: serialization failure, deadlock detected. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;

/**
 * Run `run` on a pooled connection, retried (up to MAX_ATTEMPTS) on deadlock or
 * serialization failure; other errors reject as they are. A connection that
 * fails under us (the server restarted, the socket dropped: the client then
 * emits `error`, which would crash the process with no listener, since the pool
 * listens only while a client is idle) is caught here, destroyed rather than
 * returned to the pool, and the call rejects; the pool opens fresh connections
 * for later calls. With `rollback`, a failed attempt rolls back first.
 */
async function onPooledConnection<T>(
  pool: pg.Pool,
  run: (client: pg.PoolClient) => Promise<T>,
  rollback: boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      return await run(client);
    } catch (error) {
      if (rollback && broken === undefined)
        await client.query("ROLLBACK").catch((failed: Error) => {
          broken = failed;
        });
      const code = (error as { code?: string }).code;
      if (broken === undefined && attempt < MAX_ATTEMPTS && code !== undefined && RETRYABLE.has(code))
        continue;
      throw error;
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  }
}

/** Run `body` in a transaction (BEGIN ... COMMIT), as {@link onPooledConnection} with rollback. */
export function transaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return onPooledConnection(
    pool,
    async (client) => {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    },
    true,
  );
}

/**
 * Run one statement as its own transaction (autocommit: it commits, with the
 * server's `synchronous_commit`, before the answer arrives), as
 * {@link onPooledConnection}; other errors reject as they are (the caller wraps them).
 */
export function statement(pool: pg.Pool, query: pg.QueryConfig): Promise<pg.QueryResult> {
  return onPooledConnection(pool, (client) => client.query(query), false);
}

/**
 * The storage's connection pool as its concerns use it: writes in a
 * transaction, read-only snapshots and single reads, each failure a
 * `StorageError` (a `RoundClosedError` passes as it is), and every call after
 * {@link PostgresDb.closed} is set a `StorageError` "closed".
 */
export class PostgresDb {
  /** Set when the storage closes: later calls fail. */
  closed = false;

  constructor(readonly pool: pg.Pool) {}

  /** Run `body` in a transaction ({@link transaction}: retried on deadlock or serialization failure). */
  async write<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new StorageError("PostgreSQL storage: closed");
    try {
      return await transaction(this.pool, body);
    } catch (error) {
      if (error instanceof RoundClosedError) throw error;
      throw new StorageError(`PostgreSQL write failed: ${(error as Error).message}`);
    }
  }

  /** Run `body` in a read-only transaction with one snapshot for all its statements. */
  async snapshot<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.write(async (client) => {
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      return body(client);
    });
  }

  /** One read statement on a pooled connection; rows as arrays. */
  async read(sql: string, values: unknown[]): Promise<unknown[][]> {
    if (this.closed) throw new StorageError("PostgreSQL storage: closed");
    try {
      return (await this.pool.query({ text: sql, values, rowMode: "array" })).rows;
    } catch (error) {
      throw new StorageError(`PostgreSQL read failed: ${(error as Error).message}`);
    }
  }
}
