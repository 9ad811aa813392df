import type { LoadedDataset } from "../api.js";
import { createMovielensParser, type MovielensOptions } from "../movielens.js";
import { forEachTextLine } from "./read-file.js";
import { resolveDatasetFiles } from "./resolve-path.js";

/**
 * Loads MovieLens genre flags (see `createMovielensParser`) from a release folder:
 * ml-latest-small (`movies.csv` + `ratings.csv`) or ml-100k (`u.item` + `u.data`).
 * O(file size).
 */
export async function loadMovielens(path: string, options: MovielensOptions = {}): Promise<LoadedDataset> {
  const where = "loadMovielens";
  const [movies] = await resolveDatasetFiles(where, path, ["movies.csv", "u.item"]);
  const ratingsName = movies!.endsWith("u.item") ? "u.data" : "ratings.csv";
  const [ratings] = await resolveDatasetFiles(where, path, [ratingsName]);
  const parser = createMovielensParser(where);
  await forEachTextLine(where, movies!, (line, n) => parser.movieLine(line, n, movies!));
  await forEachTextLine(where, ratings!, (line, n) => parser.ratingLine(line, n, ratings!));
  return parser.finish(options, [movies!, ratings!]);
}
