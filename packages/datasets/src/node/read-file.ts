import { createReadStream, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import { createGunzip } from "node:zlib";
import { DatasetFileError } from "../errors.js";
import { createLineSplitter, type LineHandler } from "../line-splitter.js";

const CHUNK_BYTES = 1 << 20;

/** `stat(path)`; a path that cannot be read is a `DatasetFileError` naming the system's error code. @internal */
export async function statDatasetPath(where: string, path: string): Promise<Stats> {
  try {
    return await stat(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new DatasetFileError(where, path, `cannot read (${reason})`);
  }
}

/** Throws `DatasetFileError` unless `path` is an existing regular file. @internal */
export async function checkFile(where: string, path: string): Promise<void> {
  if (!(await statDatasetPath(where, path)).isFile())
    throw new DatasetFileError(where, path, "not a regular file");
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const head = new Uint8Array(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Streams a file's bytes in chunks of about 1 MiB, gunzipping on the fly when the file starts with the gzip
 * magic bytes (whatever its name). Memory: one chunk. O(bytes).
 * @internal
 */
export async function forEachChunk(
  where: string,
  path: string,
  onChunk: (bytes: Uint8Array) => void,
): Promise<void> {
  await checkFile(where, path);
  const gzip = await isGzip(path);
  const file = createReadStream(path, { highWaterMark: CHUNK_BYTES });
  const stream = gzip ? file.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : file;
  if (gzip) file.on("error", (error) => stream.destroy(error));
  try {
    for await (const chunk of stream) onChunk(chunk as Uint8Array);
  } catch (error) {
    if (
      error instanceof Error &&
      error.name !== "MalformedDataError" &&
      !(error instanceof DatasetFileError)
    ) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code) throw new DatasetFileError(where, path, `read failed (${code}: ${error.message})`);
    }
    throw error;
  } finally {
    file.destroy();
  }
}

/**
 * Streams a (possibly gzipped) UTF-8 text file line by line (LF or CRLF; see `createLineSplitter`).
 * Memory: one chunk plus the longest line. Returns the number of lines. O(bytes).
 * @internal
 */
export async function forEachTextLine(where: string, path: string, onLine: LineHandler): Promise<number> {
  const decoder = new TextDecoder("utf-8");
  const splitter = createLineSplitter(onLine);
  await forEachChunk(where, path, (bytes) => splitter.push(decoder.decode(bytes, { stream: true })));
  splitter.push(decoder.decode());
  return splitter.end();
}
