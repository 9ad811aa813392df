import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { ReporterStorage } from "./api.js";

/**
 * A reporter storage in one JSON file at `path` (Node; `@calm-ldp/client/node`,
 * kept out of the browser entry): an object of key -> value, rewritten through a
 * temporary file and a rename, so a crash leaves the old or the new file, never
 * half of one. Rejects when the file cannot be read or written (disk full,
 * permissions). O(file size) per call.
 */
export function fileStorage(path: string): ReporterStorage {
  /** The file's entries; "corrupt" when it is not a JSON object (every key then reads as "", a corrupt state). */
  const load = async (): Promise<Record<string, string> | "corrupt"> => {
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return {};
      throw error;
    }
    try {
      const all = JSON.parse(text) as unknown;
      return typeof all === "object" && all !== null && !Array.isArray(all)
        ? (all as Record<string, string>)
        : "corrupt";
    } catch {
      return "corrupt";
    }
  };
  return {
    read: async (key) => {
      const all = await load();
      return all === "corrupt" ? "" : typeof all[key] === "string" ? all[key] : undefined;
    },
    write: async (key, value) => {
      const loaded = await load();
      const all = loaded === "corrupt" ? {} : loaded;
      all[key] = value;
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(all));
      await rename(temporary, path);
    },
  };
}
