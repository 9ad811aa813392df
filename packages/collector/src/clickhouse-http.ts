import { Agent, request } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { AcceptedReport } from "./api.js";

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
   * Run `sql` with the table `ids` (one column `report_id UUID`) holding `ids`,
   * sent as external data (a multipart form, the ids in RowBinary, 16 bytes each)
   * rather than as SQL text the server would parse: `... WHERE report_id IN ids`.
   */
  async queryWithIds(sql: string, ids: Iterable<string>): Promise<string[][]> {
    const list = [...ids];
    const binary = Buffer.allocUnsafe(16 * list.length);
    list.forEach((id, i) => {
      writeUuid(binary, 16 * i, id);
    });
    const url = new URL(this.#url);
    url.searchParams.set("query", sql);
    url.searchParams.set("ids_structure", "report_id UUID");
    url.searchParams.set("ids_format", "RowBinary");
    const body = Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="ids"; filename="ids"\r\n` +
          "Content-Type: application/octet-stream\r\n\r\n",
      ),
      binary,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    return rowsOf(await this.#post(url, body, `multipart/form-data; boundary=${BOUNDARY}`));
  }

  /** `INSERT INTO <table> FORMAT RowBinary` with `rows` (see {@link reportRowsBinary}) as the body. */
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

/** A `TabSeparated` answer's rows, split into fields. */
function rowsOf(answer: Buffer): string[][] {
  const text = answer.toString("utf8");
  if (text === "") return [];
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.split("\t"));
}

/** A UUID's 16 bytes in RowBinary at `at`: each 64-bit half (16 hex digits) little-endian. */
function writeUuid(out: Buffer, at: number, uuid: string): void {
  const id = Buffer.from(uuid.replace(/-/g, ""), "hex");
  for (let i = 0; i < 8; i++) {
    out[at + i] = id[7 - i]!;
    out[at + 8 + i] = id[15 - i]!;
  }
}

/** Bytes of one row of `calm_reports` in RowBinary, before its cells: round (8), id (16), view (4), cell count (varint). */
const ROW_HEAD = 8 + 16 + 4 + 5;

/**
 * Reports as `calm_reports` rows `(round_no UInt64, report_id UUID, view UInt32,
 * cells Array(UInt32))` in ClickHouse's RowBinary format: integers little-endian,
 * a UUID as its two 64-bit halves (the first 16 hex digits, then the last 16), each
 * little-endian, an array as a LEB128 length and its elements. O(reports x cells),
 * ~30 + 4 x cells bytes per report; ids must be lowercase UUID text (checked by the caller).
 */
export function reportRowsBinary(round: number, reports: readonly AcceptedReport[]): Buffer {
  let size = 0;
  for (const report of reports) size += ROW_HEAD + 4 * report.cells.length;
  const out = Buffer.allocUnsafe(size);
  const high = Math.floor(round / 2 ** 32);
  const low = round >>> 0;
  let at = 0;
  for (const report of reports) {
    out.writeUInt32LE(low, at);
    out.writeUInt32LE(high, at + 4);
    writeUuid(out, at + 8, report.id);
    out.writeUInt32LE(report.view, at + 24);
    at += 28;
    let length = report.cells.length;
    do {
      const byte = length & 0x7f;
      length >>>= 7;
      out[at++] = length > 0 ? byte | 0x80 : byte;
    } while (length > 0);
    for (const cell of report.cells) {
      out.writeUInt32LE(cell, at);
      at += 4;
    }
  }
  return out.subarray(0, at);
}
