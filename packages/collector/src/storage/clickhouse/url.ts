import { InvalidParameterError } from "../../errors.js";

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Where a ClickHouse cluster is, parsed from `http://[user[:password]@]host:port,host:port/database?cluster=name`. */
export interface ClickHouseLocation {
  /** The HTTP endpoint of each shard, in the order of the cluster's shards (`http://host:port`). */
  readonly shards: readonly string[];
  readonly username: string;
  readonly password: string;
  /** Database of the collector's tables (created when absent). */
  readonly database: string;
  /** The `remote_servers` cluster that names every shard (the Distributed tables read it). */
  readonly cluster: string;
}

/**
 * Parse a ClickHouse cluster URL: `http://[user[:password]@]host1:port1,host2:port2/database?cluster=name`
 * (hosts listed in the cluster's shard order, as libpq lists several PostgreSQL hosts;
 * database default `calm_ldp`, cluster default `calm_ldp`). Throws
 * `InvalidParameterError` naming the part that is wrong. O(length).
 */
export function parseClickHouseUrl(url: string): ClickHouseLocation {
  const match = /^(https?):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/.exec(
    url,
  );
  if (!match)
    throw new InvalidParameterError(
      `ClickHouse URL must look like http://host:port,host:port/database?cluster=name (got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, "//***@"))})`,
    );
  const [, scheme, user, password, hosts, path, query] = match;
  const shards = hosts!.split(",").map((host) => {
    if (!/^[A-Za-z0-9.\-[\]:]+:\d+$/.test(host))
      throw new InvalidParameterError(`ClickHouse URL: shard ${JSON.stringify(host)} is not host:port`);
    return `${scheme}://${host}`;
  });
  const params = new URLSearchParams(query ?? "");
  const database = decodeURIComponent(path || "calm_ldp");
  const cluster = params.get("cluster") ?? "calm_ldp";
  for (const [what, name] of [
    ["database", database],
    ["cluster", cluster],
  ] as const)
    if (!IDENTIFIER.test(name))
      throw new InvalidParameterError(`ClickHouse URL: ${what} ${JSON.stringify(name)} is not an identifier`);
  return {
    shards,
    username: decodeURIComponent(user || "default"),
    password: decodeURIComponent(password ?? ""),
    database,
    cluster,
  };
}

/**
 * The shard of a report id: FNV-1a (32 bits) of its text, mod the number of
 * shards. Every collector computes the same shard for the same id, so a retried
 * report reaches the shard that already holds it. O(36).
 */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}
