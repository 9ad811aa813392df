import { openStorage } from "@calm-ldp/collector";
import type { OptionSpec } from "../cli-kit.js";
import { resolveServeOptions, type ServeOptions, storageLocation } from "./collector-serve.js";

/**
 * `collector migrate --db|--postgres|--clickhouse`: open the storage, which
 * brings its schema to this collector's version (one step per version; a newer
 * schema is refused), and close it. The document says what was done.
 */
export async function migrate(raw: ServeOptions, specs: Record<string, OptionSpec>): Promise<unknown> {
  const { options } = resolveServeOptions(raw, specs);
  const storage = await openStorage(storageLocation("migrate", options, false));
  try {
    const migration = storage.schemaMigration;
    if (migration) return { ...migration };
    const check = storage.ready ? await storage.ready() : undefined;
    return { backend: storage.backend, from: null, to: check?.found ?? null, steps: [] };
  } finally {
    await storage.close();
  }
}
