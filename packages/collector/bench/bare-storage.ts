import type { CollectorStorage } from "../src/index.js";

/**
 * The benchmark's bare ceiling: `storage` with every write of reports and
 * counters made a no-op (rounds are still read from and created in `storage`,
 * so the bare collector serves the same round ids). A collector on it runs the
 * same server stack (HTTP, JSON parsing, the schema, `validateBatch`: wire format
 * and oracle checks) and stores nothing, which bounds what any store can reach.
 */
export function bareStorage(storage: CollectorStorage): CollectorStorage {
  return {
    backend: `bare (${storage.backend} rounds only)`,
    createRound: (round) => storage.createRound(round),
    findRound: (id) => storage.findRound(id),
    storeReports: async (_round, reports) => ({ stored: reports.length, duplicates: 0 }),
    countRejected: async () => undefined,
    counts: (round) => storage.counts(round),
    supportCounts: (round) => storage.supportCounts(round),
    ping: () => storage.ping(),
    close: async () => undefined,
  };
}
