import type { LoadedDataset, MsnbcOptions } from "./api.js";
import { CodeBuffer } from "./column-builder.js";
import { fail, MalformedDataError } from "./errors.js";
import { finishDataset, type RawAttribute } from "./finish-dataset.js";
import { createIntLineTokenizer } from "./int-line-tokenizer.js";

/** The 17 MSNBC page categories, in code order 1..17 (the header of `msnbc990928.seq`). */
export const MSNBC_CATEGORIES: readonly string[] = [
  "frontpage",
  "news",
  "tech",
  "local",
  "opinion",
  "on-air",
  "misc",
  "weather",
  "msn-news",
  "health",
  "living",
  "business",
  "msn-sports",
  "sports",
  "summary",
  "bbs",
  "travel",
];

/** A push-based MSNBC parser: feed byte chunks, then `finish`. */
export interface MsnbcParser {
  push(bytes: Uint8Array): void;
  /** Ends the input and builds the dataset (`files`: the files read, for the provenance). */
  finish(options?: MsnbcOptions, files?: readonly string[]): LoadedDataset;
}

/**
 * Parser of the UCI MSNBC sequence file: a header (`%` comment lines and one line of category names), then
 * one line per user of space-separated category codes 1..C. Each user becomes one record of C binary
 * attributes, attribute j = 1 if the user visited category j+1 at least once ("visited" flags). Blank
 * lines are skipped (they are not users). Without a header the 17 standard names are used. Streaming and
 * allocation-free per line: one 32-bit visited-mask per user while reading, then C byte columns.
 * O(bytes + users * C). Throws `MalformedDataError` for a code outside 1..C, a non-integer token, or text
 * after the first sequence.
 */
export function createMsnbcParser(where = "parseMsnbc", fileName = "<input>"): MsnbcParser {
  const masks = new CodeBuffer(1 << 16);
  let names: readonly string[] | undefined;
  let categories = MSNBC_CATEGORIES.length;
  let inSequences = false;
  const tokenizer = createIntLineTokenizer(where, fileName, {
    values(values, count, lineNumber) {
      if (count === 0) return;
      inSequences = true;
      let mask = 0;
      for (let i = 0; i < count; i++) {
        const code = values[i]!;
        if (!(code >= 1 && code <= categories)) {
          throw new MalformedDataError(
            where,
            fileName,
            lineNumber,
            `token ${i + 1}`,
            `category code must be in 1..${categories} (got ${code})`,
          );
        }
        mask |= 1 << (code - 1);
      }
      masks.push(mask >>> 0);
    },
    text(line, lineNumber) {
      if (line.startsWith("%")) return;
      if (inSequences || names !== undefined) {
        throw new MalformedDataError(
          where,
          fileName,
          lineNumber,
          "",
          `expected a sequence of category codes (got ${JSON.stringify(line.slice(0, 40))})`,
        );
      }
      names = line.split(/\s+/).filter((token) => token !== "");
      categories = names.length;
      if (categories < 1 || categories > 32) {
        throw new MalformedDataError(
          where,
          fileName,
          lineNumber,
          "",
          `the category header must name 1..32 categories (got ${categories})`,
        );
      }
    },
  });
  return {
    push: (bytes) => tokenizer.push(bytes),
    finish(options = {}, files = [fileName]) {
      const lines = tokenizer.end();
      if (options.d !== undefined && options.d > categories) {
        fail(where, `d must be <= ${categories} (the categories in the file)`, options.d);
      }
      const d = options.d ?? categories;
      const users = masks.length;
      const view = masks.view();
      const labelNames = names ?? MSNBC_CATEGORIES;
      const columns: Uint8Array[] = [];
      const attributes: RawAttribute[] = [];
      for (let j = 0; j < d; j++) {
        const column = new Uint8Array(users);
        for (let r = 0; r < users; r++) column[r] = (view[r]! >>> j) & 1;
        columns.push(column);
        attributes.push({ name: labelNames[j]!, labels: ["0", "1"], kind: "binary" });
      }
      if (users === 0) throw new MalformedDataError(where, fileName, lines, "", "no user sequences found");
      return finishDataset(
        {
          attributes,
          columns,
          rows: users,
          source: `msnbc:${files.join(",")}`,
          files,
          rowsRead: users,
          drops: [],
          preprocessing: [
            `each user's sequence of page categories reduced to ${categories} "visited" flags (1 = at least one page view of that category)`,
            ...(names ? [] : ["no category header: the 17 standard MSNBC category names assumed"]),
          ],
        },
        where,
        { d },
      );
    },
  };
}

/** Parses an in-memory MSNBC sequence file (text or bytes). See {@link createMsnbcParser}. O(bytes). */
export function parseMsnbc(input: string | Uint8Array, options: MsnbcOptions = {}): LoadedDataset {
  const parser = createMsnbcParser("parseMsnbc", options.fileName ?? "<input>");
  parser.push(typeof input === "string" ? new TextEncoder().encode(input) : input);
  return parser.finish(options);
}
