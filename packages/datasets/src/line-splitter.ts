/** Receives one line (terminator and a trailing `\r` removed) and its 1-based line number. */
export type LineHandler = (line: string, lineNumber: number) => void;

/** A push-based line splitter for text arriving in chunks. */
export interface LineSplitter {
  /** Feed the next chunk of text; complete lines are handed on at once. */
  push(chunk: string): void;
  /** End of input: hands on the last line if it has no terminator. Returns the number of lines seen. */
  end(): number;
}

/**
 * Splits text chunks into lines at `\n` (a `\r` before it is dropped, so LF and CRLF files read the same).
 * Only the unfinished tail of a chunk is kept between pushes, so memory is bounded by the longest line.
 * An empty input has no lines; a final terminator does not start an extra line. O(characters).
 */
export function createLineSplitter(onLine: LineHandler): LineSplitter {
  let pending = "";
  let lineNumber = 0;
  const emit = (line: string) => {
    lineNumber++;
    onLine(line.endsWith("\r") ? line.slice(0, -1) : line, lineNumber);
  };
  return {
    push(chunk) {
      let start = 0;
      let at = chunk.indexOf("\n");
      if (at < 0) {
        pending += chunk;
        return;
      }
      emit(pending + chunk.slice(0, at));
      pending = "";
      start = at + 1;
      while ((at = chunk.indexOf("\n", start)) >= 0) {
        emit(chunk.slice(start, at));
        start = at + 1;
      }
      pending = chunk.slice(start);
    },
    end() {
      if (pending !== "") emit(pending);
      pending = "";
      return lineNumber;
    },
  };
}

/** Hands every line of an in-memory text to `onLine` (same rules as {@link createLineSplitter}). O(length). */
export function forEachLine(text: string, onLine: LineHandler): number {
  const splitter = createLineSplitter(onLine);
  splitter.push(text);
  return splitter.end();
}
