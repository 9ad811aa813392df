import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatDataSpec, parseDataSpec } from "./data-spec.js";
import { MalformedDataError } from "./errors.js";
import { loadMovielens } from "./node/load-movielens.js";
import { DATA_ROOT } from "./test-support.js";

function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "calm-ml-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const MOVIES = [
  "movieId,title,genres",
  "1,Alpha (1990),Action|Comedy",
  '2,"Beta, The (1991)",Action',
  "3,Gamma (1992),Comedy",
  "4,Delta (1993),(no genres listed)",
].join("\n");
// movie 1: 3 ratings, movie 2: 2, movie 3: 1, movie 4: 1.
const RATINGS = [
  "userId,movieId,rating,timestamp",
  "1,1,4,0",
  "2,1,3,0",
  "3,1,5,0",
  "1,2,4,0",
  "4,2,2,0",
  "4,3,1,0",
  "5,4,3,0",
].join("\n");

describe("MovieLens genre flags", () => {
  it("flags a genre when the user rated one of its top movies (ml-latest-small layout)", async () => {
    const data = await loadMovielens(fixture({ "movies.csv": MOVIES, "ratings.csv": RATINGS }), { top: 1 });
    // Top-1 Action: movie 1 (3 ratings). Top-1 Comedy: movie 1 (3 ratings beat movie 3's 1).
    expect(data.schema.attributes.map((a) => a.name)).toEqual(["Action", "Comedy"]);
    expect(Array.from(data.store.columns[0]!)).toEqual([1, 1, 1, 0, 0]);
    expect(Array.from(data.store.columns[1]!)).toEqual([1, 1, 1, 0, 0]);
    const wider = await loadMovielens(fixture({ "movies.csv": MOVIES, "ratings.csv": RATINGS }), { top: 2 });
    // Action top-2 {1, 2}: users 1, 2, 3, 4. Comedy top-2 {1, 3}: users 1, 2, 3, 4. User 5 only rated a genre-less movie.
    expect(Array.from(wider.store.columns[0]!)).toEqual([1, 1, 1, 1, 0]);
    expect(wider.info.preprocessing.join(" ")).toContain("2 most-rated movies");
  });

  it("reads the ml-100k layout (u.item flags, tab-separated u.data)", async () => {
    const flags = (on: number[]) =>
      Array.from({ length: 19 }, (_, g) => (on.includes(g) ? "1" : "0")).join("|");
    const item = [
      `1|A (1995)|01-Jan-1995||url|${flags([1])}`,
      `2|B (1995)|01-Jan-1995||url|${flags([1, 5])}`,
    ].join("\n");
    const data = await loadMovielens(fixture({ "u.item": item, "u.data": "10\t1\t3\t0\n11\t2\t4\t0\n" }), {
      top: 5,
    });
    expect(data.schema.attributes.map((a) => a.name)).toEqual(["Action", "Comedy"]);
    expect(Array.from(data.store.columns[1]!)).toEqual([0, 1]);
  });

  it("names file, line and field of malformed input", async () => {
    const dir = fixture({ "movies.csv": MOVIES, "ratings.csv": "userId,movieId\n1,x\n" });
    await expect(loadMovielens(dir)).rejects.toThrow(MalformedDataError);
    await expect(loadMovielens(dir)).rejects.toThrow(
      /ratings\.csv:2, field movie id: expected a non-negative integer \(got "x"\)/,
    );
  });

  it("parses and formats movielens specs", () => {
    const spec = parseDataSpec("movielens:/data/ml?top=20");
    expect(spec).toEqual({ kind: "movielens", path: "/data/ml", top: 20 });
    expect(formatDataSpec(spec)).toBe("movielens:/data/ml?top=20");
    expect(() => parseDataSpec("movielens:/data/ml?top=0")).toThrow(/top must be an integer >= 1/);
  });

  const real = join(DATA_ROOT, "movielens/ml-latest-small");
  const absent = !existsSync(join(real, "ratings.csv"));
  it.skipIf(absent)(
    `ml-latest-small: 610 users, 19 genres${absent ? ` (absent: ${real})` : ""}`,
    async () => {
      const data = await loadMovielens(real);
      expect(data.store.size).toBe(610);
      expect(data.schema.attributes).toHaveLength(19);
      const frequencies = data.store.columns.map(
        (c) => Array.from(c).reduce((s, x) => s + x, 0) / data.store.size,
      );
      for (let i = 1; i < frequencies.length; i++)
        expect(frequencies[i]!).toBeLessThanOrEqual(frequencies[i - 1]!);
    },
  );
});
