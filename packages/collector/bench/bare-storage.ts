import type { CollectorStorage } from "../src/index.js";

/**
 * The benchmark's bare ceiling: `storage` with every write of reports and
 * counters made a no-op (rounds are still read from and created in `storage`,
 * so the bare collector serves the same round ids). A collector on it runs the
 * same server stack (HTTP, JSON parsing, the schema, `validateBatch`: wire format
 * and oracle checks) and stores nothing, which bounds what any store can reach.
 */
export function bareStorage(storage: CollectorStorage): CollectorStorage {
  const overrides: Partial<CollectorStorage> = {
    backend: `bare (${storage.backend} rounds only)`,
    storeReports: async (_round, reports) => ({ stored: reports.length, duplicates: 0 }),
    storeReportsAndDrops: async (_round, reports) => ({ stored: reports.length, duplicates: 0 }),
    countRejected: async () => undefined,
    countDropped: async () => undefined,
    close: async () => undefined,
  };
  return new Proxy(storage, {
    get(target, key) {
      if (key in overrides) return overrides[key as keyof CollectorStorage];
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
