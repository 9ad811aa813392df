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
   * Run `sql` with external tables of one column `report_id UUID` each, named
   * by `tables`' keys and holding the ids of its values (16 bytes each, see
   * {@link uuidsBinary}; empty is allowed), sent as a multipart form rather than
   * as SQL text the server would parse: `... WHERE report_id IN ids`.
   */
  async queryWithIds(sql: string, tables: Record<string, Buffer>): Promise<string[][]> {
    const url = new URL(this.#url);
    url.searchParams.set("query", sql);
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

/**
 * A UUID's 16 bytes in RowBinary at `at`, from its four 32-bit words (most
 * significant first, see `uuidWords`): each 64-bit half little-endian, so the
 * second word, then the first, then the fourth, then the third. O(1), no allocation.
 */
function writeUuid(out: Buffer, at: number, words: Uint32Array, w: number): void {
  out.writeUInt32LE(words[w + 1]!, at);
  out.writeUInt32LE(words[w]!, at + 4);
  out.writeUInt32LE(words[w + 3]!, at + 8);
  out.writeUInt32LE(words[w + 2]!, at + 12);
}

/** The first `count` ids of `words` (four words each) as RowBinary UUIDs, 16 bytes each. O(count). */
export function uuidsBinary(words: Uint32Array, count: number): Buffer {
  const out = Buffer.allocUnsafe(16 * count);
  for (let i = 0; i < count; i++) writeUuid(out, 16 * i, words, 4 * i);
  return out;
}

/** Bytes of one row of `calm_reports` in RowBinary, before its cells: round (8), id (16), view (4), cell count (varint). */
const ROW_HEAD = 8 + 16 + 4 + 5;

/**
 * Reports as `calm_reports` rows `(round_no UInt64, report_id UUID, view UInt32,
 * cells Array(UInt32))` in ClickHouse's RowBinary format: integers little-endian,
 * a UUID as its two 64-bit halves (the first 16 hex digits, then the last 16), each
 * little-endian, an array as a LEB128 length and its elements. Report i's id is
 * given as words `4i..4i+3` of `words` (parsed once, see `uuidWords`). One buffer,
 * sized before writing, no allocation per row. O(reports x cells), ~30 + 4 x cells
 * bytes per report.
 */
export function reportRowsBinary(
  round: number,
  reports: readonly AcceptedReport[],
  words: Uint32Array,
): Buffer {
  let size = 0;
  for (const report of reports) size += ROW_HEAD + 4 * report.cells.length;
  const out = Buffer.allocUnsafe(size);
  const high = Math.floor(round / 2 ** 32);
  const low = round >>> 0;
  let at = 0;
  for (let r = 0; r < reports.length; r++) {
    const report = reports[r]!;
    out.writeUInt32LE(low, at);
    out.writeUInt32LE(high, at + 4);
    writeUuid(out, at + 8, words, 4 * r);
    out.writeUInt32LE(report.view, at + 24);
    at += 28;
    const cells = report.cells;
    let length = cells.length;
    do {
      const byte = length & 0x7f;
      length >>>= 7;
      out[at++] = length > 0 ? byte | 0x80 : byte;
    } while (length > 0);
    for (let c = 0; c < cells.length; c++) {
      out.writeUInt32LE(cells[c]!, at);
      at += 4;
    }
  }
  return out.subarray(0, at);
}
