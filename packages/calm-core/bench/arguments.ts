/** The number after `--<name>` on the command line, or `fallback` when the flag is absent. */
export function argument(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
