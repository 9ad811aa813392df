import { MalformedDataError } from "./errors.js";

/** What {@link createIntLineTokenizer} hands on, line by line. */
export interface IntLineHandlers {
  /**
   * A line of whitespace-separated integers: `values[0..count)` (the buffer is reused: copy what you keep).
   * A blank line arrives with count 0.
   */
  values(values: Float64Array, count: number, lineNumber: number): void;
  /** A line whose first non-blank character is neither a digit nor `-`: its text, leading blanks removed. */
  text(line: string, lineNumber: number): void;
}

/** A push-based tokenizer of byte chunks. */
export interface IntLineTokenizer {
  push(bytes: Uint8Array): void;
  /** End of input (finishes a last line without terminator). Returns the number of lines. */
  end(): number;
}

/** The bytes the tokenizer tells apart (their ASCII codes). */
const BYTE = { TAB: 9, LF: 10, CR: 13, SPACE: 32, MINUS: 45, ZERO: 48, NINE: 57 } as const;
const MAX_VALUE = 2 ** 53;

const MODE_START = 0;
const MODE_NUMBERS = 1;
const MODE_TEXT = 2;

/**
 * Tokenizes lines of whitespace-separated integers straight from bytes (UTF-8 or ASCII; a leading byte order
 * mark is skipped), without building
 * a string per line: the fast path for FIMI/SPMF transactions and MSNBC sequences. Lines may end in LF or
 * CRLF; spaces and tabs separate tokens. A line that starts (after blanks) with something other than a digit
 * or `-` is decoded and handed to `text` (headers, comments). Anything but an integer inside a numeric line
 * throws `MalformedDataError` naming the file, line and token. Memory: the longest line. O(bytes).
 */
export function createIntLineTokenizer(
  where: string,
  file: string,
  handlers: IntLineHandlers,
): IntLineTokenizer {
  let values = new Float64Array(256);
  let count = 0;
  let mode = MODE_START;
  let lineNumber = 1;
  let value = 0;
  let inNumber = false;
  let negative = false;
  let textBytes = new Uint8Array(256);
  let textLength = 0;
  const decoder = new TextDecoder();
  let atStart = true;

  const malformed = (problem: string): never => {
    throw new MalformedDataError(where, file, lineNumber, `token ${count + 1}`, problem);
  };
  const finishNumber = () => {
    if (count === values.length) {
      const grown = new Float64Array(values.length * 2);
      grown.set(values);
      values = grown;
    }
    values[count++] = negative ? -value : value;
    value = 0;
    inNumber = false;
    negative = false;
  };
  const finishLine = () => {
    if (mode === MODE_TEXT) {
      let length = textLength;
      if (length > 0 && textBytes[length - 1] === BYTE.CR) length--;
      handlers.text(decoder.decode(textBytes.subarray(0, length)), lineNumber);
      textLength = 0;
    } else {
      if (negative && !inNumber) malformed('"-" without digits');
      if (inNumber) finishNumber();
      handlers.values(values, count, lineNumber);
    }
    count = 0;
    mode = MODE_START;
    lineNumber++;
  };
  const pushText = (byte: number) => {
    if (textLength === textBytes.length) {
      const grown = new Uint8Array(textBytes.length * 2);
      grown.set(textBytes);
      textBytes = grown;
    }
    textBytes[textLength++] = byte;
  };

  return {
    push(bytes) {
      let i = 0;
      if (atStart && bytes.length > 0) {
        atStart = false;
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3; // UTF-8 byte order mark
      }
      for (const length = bytes.length; i < length; i++) {
        const byte = bytes[i]!;
        if (byte === BYTE.LF) {
          finishLine();
          continue;
        }
        if (mode === MODE_TEXT) {
          pushText(byte);
          continue;
        }
        if (byte >= BYTE.ZERO && byte <= BYTE.NINE) {
          mode = MODE_NUMBERS;
          value = value * 10 + (byte - BYTE.ZERO);
          inNumber = true;
          if (value > MAX_VALUE) malformed("integer too large (above 2^53)");
        } else if (byte === BYTE.SPACE || byte === BYTE.TAB || byte === BYTE.CR) {
          if (inNumber) finishNumber();
          else if (negative) malformed('"-" without digits');
        } else if (byte === BYTE.MINUS && !inNumber && !negative) {
          mode = MODE_NUMBERS;
          negative = true;
        } else if (mode === MODE_START) {
          mode = MODE_TEXT;
          pushText(byte);
        } else {
          const shown =
            byte < 128 ? JSON.stringify(String.fromCharCode(byte)) : `byte 0x${byte.toString(16)}`;
          malformed(`unexpected character ${shown} (integers only)`);
        }
      }
    },
    end() {
      if (mode !== MODE_START || count > 0 || inNumber || negative) finishLine();
      return lineNumber - 1;
    },
  };
}
