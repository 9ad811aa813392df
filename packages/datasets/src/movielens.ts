import type { LoadedDataset, ReduceOptions } from "./api.js";
import { splitCsvLine } from "./csv-fields.js";
import { fail, MalformedDataError } from "./errors.js";
import { finishDataset } from "./finish-dataset.js";

/** Options of the MovieLens genre-flag datasets. */
export interface MovielensOptions extends ReduceOptions {
  /** Movies per genre that count: the genre's `top` most-rated movies (default 10). */
  readonly top?: number;
}

/** A MovieLens parser: feed the movies file's lines, then the ratings file's lines, then finish. */
export interface MovielensParser {
  /** One line of `movies.csv` (`movieId,title,genres`, genres `|`-separated) or `u.item` (`|`-separated, 19 genre flags). */
  movieLine(line: string, lineNumber: number, file: string): void;
  /** One line of `ratings.csv` (`userId,movieId,rating,timestamp`) or `u.data` (tab-separated). */
  ratingLine(line: string, lineNumber: number, file: string): void;
  finish(options: MovielensOptions, files: readonly string[]): LoadedDataset;
}

/** Genres of ml-100k's `u.item` flags (its `u.genre`), in flag order; "unknown" is not used as a genre. */
export const ML100K_GENRES: readonly string[] = Object.freeze([
  "unknown",
  "Action",
  "Adventure",
  "Animation",
  "Children's",
  "Comedy",
  "Crime",
  "Documentary",
  "Drama",
  "Fantasy",
  "Film-Noir",
  "Horror",
  "Musical",
  "Mystery",
  "Romance",
  "Sci-Fi",
  "Thriller",
  "War",
  "Western",
]);

const NO_GENRE = "(no genres listed)";

/**
 * MovieLens as binary "viewing preference" flags, after Cormode, Kulkarni and
 * Srivastava (SIGMOD 2018, §5.1): for every genre, take its `top` most-rated
 * movies (by number of ratings; ties by smaller movie id); user u has flag 1 for
 * genre j when u rated at least one of them. Attributes are the genres ordered by
 * how many users have the flag (most first, ties by name), so `d` keeps the most
 * common genres. Reads ml-latest-small (`movies.csv`, `ratings.csv`) and ml-100k
 * (`u.item`, `u.data`) line by line; the paper used the top 1,000 movies of the
 * 20M-rating release; in the small releases (610 and 943 users, each with at
 * least 20 ratings) that flags nearly everyone, so the default here is 10, which
 * gives flag frequencies from about 0.2 to 0.85 on ml-latest-small. O(ratings + movies * genres).
 */
export function createMovielensParser(where = "movielens"): MovielensParser {
  const state: MovielensState = {
    where,
    genreIndex: new Map(),
    genreNames: [],
    movieGenres: new Map(),
    ratingsPerMovie: new Map(),
    userMovies: new Map(),
    ratingRows: 0,
    movieHeaderSeen: false,
    ratingHeaderSeen: false,
  };
  return {
    movieLine: (line, lineNumber, file) => movieLine(state, line, lineNumber, file),
    ratingLine: (line, lineNumber, file) => ratingLine(state, line, lineNumber, file),
    finish: (options, files) => finishMovielens(state, options, files),
  };
}

/** What a MovieLens parser has read so far. */
interface MovielensState {
  /** The caller's name for errors. */
  readonly where: string;
  /** Genre name -> id (in order of first sight), and the names by id. */
  readonly genreIndex: Map<string, number>;
  readonly genreNames: string[];
  /** Movie id -> its genre ids; movie id -> its number of ratings; user id -> the movies she rated. */
  readonly movieGenres: Map<number, number[]>;
  readonly ratingsPerMovie: Map<number, number>;
  readonly userMovies: Map<number, number[]>;
  ratingRows: number;
  movieHeaderSeen: boolean;
  ratingHeaderSeen: boolean;
}

/** The id of genre `name`, made on first sight. O(1). */
function genreId(state: MovielensState, name: string): number {
  let id = state.genreIndex.get(name);
  if (id === undefined) {
    id = state.genreNames.length;
    state.genreIndex.set(name, id);
    state.genreNames.push(name);
  }
  return id;
}

/** A non-negative integer field, or a `MalformedDataError` naming the file, line and field. */
function integer(where: string, text: string | undefined, file: string, line: number, field: string): number {
  const value = Number(text);
  if (text === undefined || text.trim() === "" || !Number.isSafeInteger(value) || value < 0) {
    throw new MalformedDataError(
      where,
      file,
      line,
      field,
      `expected a non-negative integer (got ${JSON.stringify(text)})`,
    );
  }
  return value;
}

/** One line of the movies file (ml-100k's `u.item` or ml-latest's `movies.csv`). O(line). */
function movieLine(state: MovielensState, line: string, lineNumber: number, file: string): void {
  const { where } = state;
  if (line.trim() === "") return;
  if (line.includes("|") && !line.includes(",movieId") && /^\d+\|/.test(line)) {
    // ml-100k u.item: id|title|date|video date|url|19 flags
    const fields = line.split("|");
    if (fields.length !== 5 + ML100K_GENRES.length) {
      throw new MalformedDataError(
        where,
        file,
        lineNumber,
        "",
        `expected ${5 + ML100K_GENRES.length} |-separated fields (got ${fields.length})`,
      );
    }
    const id = integer(where, fields[0], file, lineNumber, "movie id");
    const genres: number[] = [];
    for (let g = 1; g < ML100K_GENRES.length; g++) {
      const flag = fields[5 + g];
      if (flag !== "0" && flag !== "1")
        throw new MalformedDataError(
          where,
          file,
          lineNumber,
          ML100K_GENRES[g]!,
          `expected 0 or 1 (got ${JSON.stringify(flag)})`,
        );
      if (flag === "1") genres.push(genreId(state, ML100K_GENRES[g]!));
    }
    state.movieGenres.set(id, genres);
    return;
  }
  if (!state.movieHeaderSeen && line.startsWith("movieId")) {
    state.movieHeaderSeen = true;
    return;
  }
  const fields = splitCsvLine(line, ",");
  if (typeof fields === "string") throw new MalformedDataError(where, file, lineNumber, "", fields);
  if (fields.length !== 3)
    throw new MalformedDataError(
      where,
      file,
      lineNumber,
      "",
      `expected movieId,title,genres (got ${fields.length} fields)`,
    );
  const id = integer(where, fields[0], file, lineNumber, "movieId");
  const genres =
    fields[2] === NO_GENRE
      ? []
      : fields[2]!
          .split("|")
          .filter((g) => g !== "")
          .map((name) => genreId(state, name));
  state.movieGenres.set(id, genres);
}

/** One line of the ratings file (`u.data`, tab-separated, or `ratings.csv`). O(line). */
function ratingLine(state: MovielensState, line: string, lineNumber: number, file: string): void {
  const { where } = state;
  if (line.trim() === "") return;
  if (!state.ratingHeaderSeen && line.startsWith("userId")) {
    state.ratingHeaderSeen = true;
    return;
  }
  const fields = line.includes("\t") ? line.split("\t") : line.split(",");
  if (fields.length < 2)
    throw new MalformedDataError(
      where,
      file,
      lineNumber,
      "",
      `expected user and movie ids (got ${JSON.stringify(line.slice(0, 40))})`,
    );
  const user = integer(where, fields[0], file, lineNumber, "user id");
  const movie = integer(where, fields[1], file, lineNumber, "movie id");
  state.ratingRows++;
  state.ratingsPerMovie.set(movie, (state.ratingsPerMovie.get(movie) ?? 0) + 1);
  const list = state.userMovies.get(user);
  if (list) list.push(movie);
  else state.userMovies.set(user, [movie]);
}

/**
 * The dataset: per genre its `top` most-rated movies, every user's flag per genre
 * (rated one of them), genres ordered by how many users have the flag.
 * O(ratings + movies * genres + genres log genres).
 */
function finishMovielens(
  state: MovielensState,
  options: MovielensOptions,
  files: readonly string[],
): LoadedDataset {
  const { where } = state;
  const top = options.top ?? 10;
  if (!Number.isSafeInteger(top) || top < 1) fail(where, "top must be an integer >= 1", top);
  if (state.movieGenres.size === 0)
    throw new MalformedDataError(where, files[0] ?? "<input>", 0, "", "no movies read");
  if (state.userMovies.size === 0)
    throw new MalformedDataError(where, files[1] ?? "<input>", 0, "", "no ratings read");
  // Per genre, its `top` most-rated movies.
  const byGenre: number[][] = state.genreNames.map(() => []);
  for (const [movie, genres] of state.movieGenres) for (const g of genres) byGenre[g]!.push(movie);
  const topMovies = new Map<number, number[]>(); // movie -> genres in which it is a top movie
  byGenre.forEach((movies, g) => {
    movies.sort((a, b) => (state.ratingsPerMovie.get(b) ?? 0) - (state.ratingsPerMovie.get(a) ?? 0) || a - b);
    for (const movie of movies.slice(0, top)) {
      const list = topMovies.get(movie);
      if (list) list.push(g);
      else topMovies.set(movie, [g]);
    }
  });
  const users = [...state.userMovies.keys()].sort((a, b) => a - b);
  const flags = state.genreNames.map(() => new Uint8Array(users.length));
  users.forEach((user, row) => {
    for (const movie of state.userMovies.get(user)!)
      for (const g of topMovies.get(movie) ?? []) flags[g]![row] = 1;
  });
  const counts = flags.map((column) => column.reduce((s, x) => s + x, 0));
  const order = state.genreNames
    .map((_, g) => g)
    .sort((a, b) => counts[b]! - counts[a]! || state.genreNames[a]!.localeCompare(state.genreNames[b]!));
  return finishDataset(
    {
      attributes: order.map((g) => ({
        name: state.genreNames[g]!,
        labels: ["0", "1"],
        kind: "binary" as const,
      })),
      columns: order.map((g) => flags[g]!),
      rows: users.length,
      source: `movielens:${files[0] ?? "<input>"}?top=${top}`,
      files,
      rowsRead: users.length,
      drops: [],
      preprocessing: [
        `${state.ratingRows} ratings of ${state.userMovies.size} users over ${state.movieGenres.size} movies`,
        `genre flag = the user rated one of the genre's ${top} most-rated movies (Cormode et al. 2018, §5.1)`,
        "genres ordered by the number of users with the flag, most first",
      ],
    },
    where,
    options,
  );
}
