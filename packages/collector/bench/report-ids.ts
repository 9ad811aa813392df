/**
 * The benches' `--ids random|time-ordered` (default "random", the client's
 * default version-4 ids; "time-ordered": version 7, opt-in in the client);
 * `--random-ids`, the flag of earlier benches, is `--ids random`. Throws on
 * any other value.
 */
export function reportIdKind(argv: readonly string[] = process.argv): "random" | "time-ordered" {
  const i = argv.indexOf("--ids");
  const kind = i >= 0 ? argv[i + 1] : "random";
  if (kind !== "random" && kind !== "time-ordered")
    throw new Error(`--ids must be random or time-ordered (got ${JSON.stringify(kind)})`);
  if (kind === "time-ordered" && argv.includes("--random-ids"))
    throw new Error("--random-ids and --ids time-ordered contradict each other");
  return kind;
}
