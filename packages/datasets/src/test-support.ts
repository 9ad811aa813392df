/** Helpers shared by the tests (not exported from the package). */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Column } from "@calm-ldp/marginal-algebra";

/**
 * Where the shared real datasets live (read in place, never copied): `$CALM_LDP_DATA`,
 * else `../shared/datasets` beside the repository checkout.
 */
export const DATA_ROOT =
  process.env.CALM_LDP_DATA ?? fileURLToPath(new URL("../../../../shared/datasets", import.meta.url));

/** A real dataset file: its path, whether it is present, and a test name that says when it is absent. */
export function realFile(relative: string, label: string): { path: string; exists: boolean; name: string } {
  const path = join(DATA_ROOT, relative);
  const exists = existsSync(path);
  return { path, exists, name: exists ? `${label} (${path})` : `${label} (absent: ${path})` };
}

/** A fresh temporary folder; `write` puts a file in it, `remove` deletes it all. */
export function tempDir(): {
  dir: string;
  write(name: string, content: string | Uint8Array): string;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), "calm-ldp-datasets-"));
  return {
    dir,
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Sum of each column (the number of 1s of binary columns). */
export function columnSums(columns: readonly Column[]): number[] {
  return columns.map((column) => {
    let sum = 0;
    for (let r = 0; r < column.length; r++) sum += column[r]!;
    return sum;
  });
}

/** The store's rows as arrays of values, for small fixtures. */
export function rowsOf(columns: readonly Column[], size: number): number[][] {
  return Array.from({ length: size }, (_, r) => columns.map((column) => column[r]!));
}

/** The error `run` throws; throws itself (failing the test) when `run` returns normally. */
export function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to throw");
}
