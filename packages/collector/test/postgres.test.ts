import pg from "pg";
import { expect, it } from "vitest";
import { planRound } from "../src/index.js";
import { openPostgresStorage } from "../src/postgres.js";
import { foldDeltas } from "../src/storage/postgres/fold.js";
import { cellOffsets } from "../src/storage-rows.js";
import {
  acceptedReport,
  describeWith,
  expectSharedStore,
  expectStoredCounts,
  mixedRecords,
  postgresServer,
  roundBody,
  sleep,
  suitePostgresDatabase,
  suiteProcesses,
  withPostgresDatabase,
} from "./support.js";

describeWith(postgresServer(), "PostgreSQL: two collector processes share one database", (server) => {
  const database = suitePostgresDatabase(server.url ?? "", "two");
  const processes = suiteProcesses("SIGTERM");

  it.each([
    [1, "one writer: batches submitted together share one group (one transaction)"],
    [2, "two writers (the default): the two batches go to two concurrent groups, one meets the other's id"],
  ])("group commit, %i writer(s): an id in two batches is stored once (%s)", async (writers) => {
    const storage = await openPostgresStorage(database.url, { writers });
    try {
      const records = mixedRecords(10, 1);
      const plan = planRound(roundBody(records, 1, 2, 10_000) as never);
      const round = await storage.createRound({
        ...plan,
        id: `00000000-0000-4000-8000-00000000000${writers}`,
      });
      const report = (i: number) => acceptedReport(i, 0, [i % 2]);
      // One tick. Report 2 is in both batches, report 3 twice in the second.
      const results = await Promise.all([
        storage.storeReports(round, [report(1), report(2)]),
        storage.storeReports(round, [report(2), report(3), report(3)]),
      ]);
      // Which batch stores report 2 first depends on the order of the two groups' commits (two writers).
      expect(results.map((r) => r.stored + r.duplicates)).toEqual([2, 3]);
      expect(results[0]!.stored + results[1]!.stored).toBe(3);
      if (writers === 1)
        expect(results).toEqual([
          { stored: 2, duplicates: 0 },
          { stored: 1, duplicates: 2 },
        ]);
      // Again later (another group): all duplicates.
      expect(await storage.storeReports(round, [report(3), report(1)])).toEqual({
        stored: 0,
        duplicates: 2,
      });
      const counts = await storage.counts(round);
      expect(counts).toMatchObject({ accepted: 3, duplicates: 4 });
      const support = await storage.supportCounts(round);
      expect(Array.from(support.support[0]!).slice(0, 2)).toEqual([1, 2]);
    } finally {
      await storage.close();
    }
  });

  it("stores each group's support as a delta row and folds the deltas into the per-view counts every 64 groups and on close, each counted once", async () => {
    // A database of its own: the drop test below expects the suite database's report key nearly empty.
    await withPostgresDatabase(server.url!, "deltas", async (url) => {
      const storage = await openPostgresStorage(url, { writers: 1 });
      const probe = new pg.Client({ connectionString: url });
      await probe.connect();
      try {
        const plan = planRound(roundBody(mixedRecords(10, 3), 1, 2, 10_000) as never);
        const round = await storage.createRound({ ...plan, id: "00000000-0000-4000-8000-0000000000f0" });
        const expected = round.plan.views.map((view) => new Array<number>(view.cells).fill(0));
        let next = 0;
        // 100 reports a batch, 9 in 10 of view 0 (counts of more than one digit in a group's delta).
        const batch = () =>
          Array.from({ length: 100 }, () => {
            const i = next++;
            const view = i % 10 === 0 ? i % round.plan.m : 0;
            const cells = round.plan.views[view]!.cells;
            const support = [...new Set([i % cells, (7 * i + 3) % cells])];
            for (const cell of support) expected[view]![cell]!++;
            return acceptedReport(i, view, support);
          });
        const rows = async () =>
          (
            await probe.query(
              `SELECT (SELECT count(*) FROM calm_support_deltas WHERE round_no = $1)::int AS deltas,
                 (SELECT coalesce(sum(n), 0) FROM calm_support_deltas, unnest(counts) AS n WHERE round_no = $1)::int AS unfolded,
                 (SELECT coalesce(sum(n), 0) FROM calm_support_views, unnest(counts) AS n WHERE round_no = $1)::int AS folded`,
              [round.no],
            )
          ).rows[0] as { deltas: number; unfolded: number; folded: number };
        const total = () => expected.flat().reduce((sum, x) => sum + x, 0);
        // One writer, one batch at a time: 100 groups.
        for (let g = 0; g < 100; g++) await storage.storeReports(round, batch());
        // The fold that the 64th group started runs in the background: wait for it (at most 10 s).
        for (let waited = 0; waited < 10_000 && (await rows()).deltas > 100 - 64; waited += 50)
          await sleep(50);
        const during = await rows();
        expect(during.deltas).toBeLessThanOrEqual(100 - 64);
        expect(during.folded).toBeGreaterThan(0);
        expect(during.folded + during.unfolded).toBe(total());
        // Reads add the deltas not folded yet.
        expect((await storage.supportCounts(round)).support.map((cells) => Array.from(cells))).toEqual(
          expected,
        );
        await storage.close(); // folds what is left
        expect(await rows()).toEqual({ deltas: 0, unfolded: 0, folded: total() });
        const again = await openPostgresStorage(url);
        try {
          expect((await again.supportCounts(round)).support.map((cells) => Array.from(cells))).toEqual(
            expected,
          );
          expect((await again.counts(round)).accepted).toBe(10_000);
        } finally {
          await again.close();
        }
      } finally {
        await storage.close();
        await probe.end();
      }
    });
  });

  it("refuses a writers count that is not an integer from 1 to the pool size", async () => {
    for (const writers of [0, 1.5, 9])
      await expect(openPostgresStorage(database.url, { writers })).rejects.toThrow(
        /writers must be an integer/,
      );
  });

  it("dropping a closed round's ids rebuilds the report key and support index (REINDEX CONCURRENTLY): their size falls, the key still de-duplicates", async () => {
    const storage = await openPostgresStorage(database.url);
    const probe = new pg.Client({ connectionString: database.url });
    await probe.connect();
    try {
      const sizes = async () =>
        (
          await probe.query(
            "SELECT pg_relation_size('calm_reports_pkey')::float8 AS key, pg_relation_size('calm_support_round')::float8 AS support",
          )
        ).rows[0] as { key: number; support: number };
      const records = mixedRecords(10, 2);
      const plan = planRound(roundBody(records, 1, 2, 100_000) as never);
      const a = await storage.createRound(plan);
      const b = await storage.createRound({ ...plan, id: "00000000-0000-4000-8000-0000000b0000" });
      const report = (i: number) => acceptedReport(i, i % a.plan.m, [i % 2]);
      const n = 20_000;
      for (let i = 0; i < n; i += 1000)
        await storage.storeReports(
          a,
          Array.from({ length: 1000 }, (_, j) => report(1_000_000 + i + j)),
        );
      // Support rows as earlier versions stored them (one per supported cell; now counts per
      // (round, view, cell)): still read, and dropped with the round.
      await probe.query("INSERT INTO calm_support SELECT $1, 0, g % 2 FROM generate_series(1, 90000) AS g", [
        a.no,
      ]);
      const perView = (await storage.counts(a)).perView;
      const support = await storage.supportCounts(a);
      const full = await sizes();
      expect(full.key).toBeGreaterThan(400_000); // 20,000 keys of (int, uuid): ~0.9 MB
      const closed = await storage.closeRound(a, new Date());
      const later = new Date(Date.parse(closed.closedAt!) + 1);
      expect(await storage.dropClosedIds(later, later)).toEqual([a.id]);
      const dropped = await sizes();
      // Rebuilt over the few rows left (the group-commit test's three): a page or two each.
      expect(dropped.key).toBeLessThan(full.key / 10);
      expect(dropped.support).toBeLessThan(full.support / 5); // ~150 kB (B-tree deduplication of round_no) -> 2 pages
      const invalid = await probe.query(
        `SELECT indexrelid::regclass::text AS name FROM pg_index
           WHERE NOT indisvalid AND indrelid IN ('calm_reports'::regclass, 'calm_support'::regclass)`,
      );
      expect(invalid.rows).toEqual([]);
      expect((await storage.counts(a)).perView).toEqual(perView);
      expect(await storage.supportCounts(a)).toEqual(support);
      const left = await probe.query(
        `SELECT ((SELECT count(*) FROM calm_support_views WHERE round_no = $1)
           + (SELECT count(*) FROM calm_support_deltas WHERE round_no = $1)
           + (SELECT count(*) FROM calm_support WHERE round_no = $1))::int AS n`,
        [a.no],
      );
      expect(left.rows[0].n).toBe(0);
      // The rebuilt key still refuses a second copy of an id (round b: stored once, then a duplicate).
      expect(await storage.storeReports(b, [report(5), report(6)])).toEqual({ stored: 2, duplicates: 0 });
      expect(await storage.storeReports(b, [report(5)])).toEqual({ stored: 0, duplicates: 1 });
      // Nothing more to drop: no second rebuild.
      expect(await storage.dropClosedIds(later, later)).toEqual([]);
    } finally {
      await probe.end();
      await storage.close();
    }
  });

  it("100,000 users through two processes writing concurrently: counted once each, marginals exact", async () => {
    // Both processes start at once: the schema is created once (advisory lock).
    const [a, b] = await Promise.all([
      processes.spawn("postgres", database.url),
      processes.spawn("postgres", database.url),
    ]);
    // The round made through A is served by B from the shared database; the batches sent
    // again to both at once race in two transactions; counted once, marginals exact on both.
    const { round, aggregator } = await expectSharedStore(a, b, 100_000, 11);
    const storage = await openPostgresStorage(database.url);
    await expectStoredCounts(storage, round, aggregator);
    await storage.close();
  });
});

/**
 * Waits (polling, up to 60 s) until the rows transaction `xid` (64-bit,
 * `txid_current()`) deleted are dead to everyone: no other backend of `client`'s
 * database holds a snapshot from before it, and no backend of any database a
 * transaction id from before it (PostgreSQL keeps rows for those too); throws
 * naming the backends if they stay.
 */
async function untilNoSnapshotBefore(client: pg.Client, xid: string): Promise<void> {
  const holders = async () =>
    (
      await client.query(
        `SELECT pid, backend_type, state, left(query, 80) AS query FROM pg_stat_activity
         WHERE pid <> pg_backend_pid() AND (
           (datname = current_database() AND age(backend_xmin) >= age((($1::bigint) % 4294967296)::text::xid))
           OR age(backend_xid) >= age((($1::bigint) % 4294967296)::text::xid))`,
        [xid],
      )
    ).rows;
  for (let waited = 0; ; waited += 50) {
    const rows = await holders();
    if (rows.length === 0) return;
    if (waited >= 60_000)
      throw new Error(`snapshots from before the DELETE still held after 60 s: ${JSON.stringify(rows)}`);
    await sleep(50);
  }
}

describeWith(postgresServer(), "PostgreSQL: schema", (server) => {
  it("support deltas: stored uncompressed up to 8,160 bytes (toast_tuple_target, set once, kept on reopen); a fold reads its round's live rows, not every deleted one", async () => {
    await withPostgresDatabase(server.url!, "toast", async (url) => {
      for (let open = 0; open < 2; open++) await (await openPostgresStorage(url)).close();
      const client = new pg.Client(url);
      await client.connect();
      try {
        const { rows } = await client.query(
          "SELECT reloptions FROM pg_class WHERE oid = 'calm_support_deltas'::regclass",
        );
        expect(rows[0].reloptions).toEqual(["toast_tuple_target=8160"]);
        // 3,000 deltas of the round, folded (deleted; autovacuum has not run), then two folds of 64 new
        // ones. A fold reads the round's rows through the index with an index scan, which marks the
        // entries of rows deleted by an earlier fold as dead: the second fold reads its own 64 rows and
        // few others (134 pages here). Without the index (a sequential scan, the planner's choice once ANALYZE
        // has run), or with a bitmap scan, the second fold reads 264 pages.
        const storage = await openPostgresStorage(url);
        const round = await storage.createRound(
          planRound(roundBody(mixedRecords(10, 1), 1, 2, 10_000) as never),
        );
        await storage.close();
        // Any snapshot older than the DELETE below (an autovacuum worker analysing a table of this
        // database, say: 3,000 inserts trigger it) keeps the first fold from marking those entries dead,
        // and the second then reads every page: background timing, not the fold's plan. Autovacuum is off
        // for this table, and the fold waits until no other backend of the database holds such a snapshot.
        await client.query("ALTER TABLE calm_support_deltas SET (autovacuum_enabled = off)");
        const cells = cellOffsets(round.plan)[round.plan.views.length]!;
        const addDeltas = (n: number) =>
          client.query(
            "INSERT INTO calm_support_deltas SELECT $1, array_fill(1, ARRAY[$2::int]) FROM generate_series(1, $3)",
            [round.no, cells, n],
          );
        // Heap pages the fold reads (this backend's block fetches of the table, before and after).
        const fetched = async () =>
          (
            await client.query(
              "SELECT pg_stat_get_xact_blocks_fetched('calm_support_deltas'::regclass)::int AS pages",
            )
          ).rows[0].pages as number;
        const fold = async () => {
          await client.query("BEGIN");
          try {
            const before = await fetched();
            await foldDeltas(client as unknown as pg.PoolClient, round.no, round.plan, 0);
            return (await fetched()) - before;
          } finally {
            await client.query("COMMIT");
          }
        };
        await addDeltas(3000);
        await client.query("BEGIN");
        const { rows: xids } = await client.query("SELECT txid_current()::text AS xid");
        await client.query("DELETE FROM calm_support_deltas WHERE round_no = $1", [round.no]);
        await client.query("COMMIT");
        await untilNoSnapshotBefore(client, xids[0].xid);
        await addDeltas(64);
        await fold();
        await addDeltas(64);
        // Statistics now say every row is this round's: the planner's cheapest plan is a sequential scan.
        await client.query("ANALYZE calm_support_deltas");
        const second = await fold();
        expect(second).toBeGreaterThanOrEqual(64);
        expect(second).toBeLessThan(200);
        const { rows: views } = await client.query(
          "SELECT sum(c)::int AS n FROM calm_support_views, unnest(counts) AS c WHERE round_no = $1",
          [round.no],
        );
        expect(views[0].n).toBe(2 * 64 * cells);
      } finally {
        await client.end();
      }
    });
  });
});
