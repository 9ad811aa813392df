import { Agent, request } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/**
 * The write path's requests to one ClickHouse shard, over its HTTP interface
 * without a client library: a SQL text in the body (answers as
 * `TabSeparated` text), or an `INSERT ... FORMAT RowBinary` in the URL with the
 * rows as binary in the body. One keep-alive connection pool per shard. An
 * answer other than 200 rejects with the server's first line of error text.
 */
export class ShardHttp {
  readonly #url: URL;
  readonly #headers: Record<string, string>;
  readonly #agent: Agent;
  readonly #timeout: number;

  constructor(endpoint: string, username: string, password: string, database: string, timeout: number) {
    this.#url = new URL(endpoint);
    this.#url.searchParams.set("database", database);
    // The id lookups hold ~40 bytes of SQL per id (the server's default limit, 256 KiB, holds ~6,700).
    this.#url.searchParams.set("max_query_size", String(1 << 21));
    this.#headers = { "X-ClickHouse-User": username, "X-ClickHouse-Key": password };
    this.#agent =
      this.#url.protocol === "https:"
        ? new HttpsAgent({ keepAlive: true, maxSockets: 16 })
        : new Agent({ keepAlive: true, maxSockets: 16 });
    this.#timeout = timeout;
  }

  /** Run `sql` (a SELECT answering `TabSeparated`, or a statement); its answer's rows split into fields. */
  async query(sql: string): Promise<string[][]> {
    return rowsOf(await this.#post(this.#url, Buffer.from(sql)));
  }

  /**
   * Run `sql` with external tables of one column `report_id UUID` each, named
   * by `tables`' keys and holding the ids of its values (16 bytes each, see
   * `uuidsBinary`; empty is allowed), sent as a multipart form rather than
   * as SQL text the server would parse: `... WHERE report_id IN ids`.
   */
  async queryWithIds(sql: string, tables: Record<string, Buffer>): Promise<string[][]> {
    const url = new URL(this.#url);
    url.searchParams.set("query", sql);
    // One thread: the writer's lookups and checks read a few granules per id, and a second
    // thread cost more server CPU than it saved (bench/clickhouse-floor.ts: 4.5 against 4.0 ms
    // per lookup of 800 ids in 160,000 rows).
    url.searchParams.set("max_threads", "1");
    const parts: Buffer[] = [];
    for (const [name, binary] of Object.entries(tables)) {
      url.searchParams.set(`${name}_structure`, "report_id UUID");
      url.searchParams.set(`${name}_format`, "RowBinary");
      parts.push(
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}"\r\n` +
            "Content-Type: application/octet-stream\r\n\r\n",
        ),
        binary,
        CRLF,
      );
    }
    parts.push(MULTIPART_END);
    return rowsOf(await this.#post(url, Buffer.concat(parts), `multipart/form-data; boundary=${BOUNDARY}`));
  }

  /** `INSERT INTO <table> FORMAT RowBinary` with `rows` (see `reportRowsBinary`) as the body. */
  async insertBinary(table: string, rows: Buffer): Promise<void> {
    const url = new URL(this.#url);
    url.searchParams.set("query", `INSERT INTO ${table} FORMAT RowBinary`);
    await this.#post(url, rows);
  }

  close(): void {
    this.#agent.destroy();
  }

  #post(url: URL, body: Buffer, type = "text/plain"): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const send = url.protocol === "https:" ? httpsRequest : request;
      const req = send(
        url,
        {
          method: "POST",
          agent: this.#agent,
          timeout: this.#timeout,
          headers: { ...this.#headers, "content-type": type, "content-length": String(body.length) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("error", reject);
          response.on("end", () => {
            const answer = Buffer.concat(chunks);
            if (response.statusCode === 200) resolve(answer);
            else
              reject(
                new Error(
                  `HTTP ${response.statusCode}: ${answer.toString("utf8").split("\n")[0]!.slice(0, 500)}`,
                ),
              );
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`no answer within ${this.#timeout} ms`)));
      req.on("error", reject);
      req.end(body);
    });
  }
}

/** The multipart boundary of {@link ShardHttp.queryWithIds} (absent from its text parts). */
const BOUNDARY = "calm-ldp-ids-3f9c1b";
const CRLF = Buffer.from("\r\n");
const MULTIPART_END = Buffer.from(`--${BOUNDARY}--\r\n`);

/** A `TabSeparated` answer's rows, split into fields. */
function rowsOf(answer: Buffer): string[][] {
  const text = answer.toString("utf8");
  if (text === "") return [];
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.split("\t"));
}
