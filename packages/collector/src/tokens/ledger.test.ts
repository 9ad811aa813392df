import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withTempDir } from "../../test/support.js";
import { DirectoryQuotaLedger, QuotaLedger, type QuotaStore } from "./ledger.js";

const refused = { statusCode: 403, reason: "quota-exhausted" };

async function expectBudget(ledger: QuotaStore, fresh: () => QuotaStore | undefined): Promise<void> {
  const [r1, r2] = [randomUUID(), randomUUID()];
  await ledger.take(r1, "x", 2, 3);
  await expect(ledger.take(r1, "x", 2, 3)).rejects.toMatchObject(refused);
  await ledger.take(r1, "x", 1, 3); // the refused request took nothing
  await expect(ledger.take(r1, "x", 1, 3)).rejects.toMatchObject(refused);
  await ledger.take(r1, "y", 3, 3); // identities apart
  await ledger.take(r2, "x", 3, 3); // windows apart
  // A restarted issuer (a new ledger on the same directory) does not give a fresh budget.
  const restarted = fresh();
  if (restarted) {
    await expect(restarted.take(r1, "x", 1, 3)).rejects.toMatchObject(refused);
    await restarted.forget(r1); // the window is over: its counts go
    await restarted.take(r1, "x", 3, 3);
  }
}

describe("the issuer's quota ledger", () => {
  it("in memory: at most the budget per window, all or nothing, identities and windows apart", async () => {
    await expectBudget(new QuotaLedger(), () => undefined);
  });

  it("the restart check can fail: a memory ledger 'restarted' hands out a fresh budget", async () => {
    const window = randomUUID();
    await new QuotaLedger().take(window, "x", 3, 3);
    await expect(expectBudget(new QuotaLedger(), () => new QuotaLedger())).rejects.toThrow();
    await new QuotaLedger().take(window, "x", 3, 3); // the broken variant: the budget again
  });

  it("on disk: the same, and a restart (new ledger, same directory) keeps the counts of the window", async () => {
    await withTempDir(async (dir) => {
      await expectBudget(new DirectoryQuotaLedger(dir), () => new DirectoryQuotaLedger(dir));
    });
  });

  it("on disk: two ledgers racing on one directory never hand out more than the budget", async () => {
    await withTempDir(async (dir) => {
      const [a, b] = [new DirectoryQuotaLedger(dir), new DirectoryQuotaLedger(dir)];
      const window = randomUUID();
      const attempts = Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).take(window, "racer", 1, 5).then(
          () => true,
          () => false,
        ),
      );
      expect((await Promise.all(attempts)).filter(Boolean)).toHaveLength(5);
      // Identities are kept as digests only.
      const files = await readdir(join(dir, window));
      expect(files.join(" ")).not.toMatch(/racer/);
    });
  });

  it("on disk: prune drops windows untouched for longer than the age given", async () => {
    await withTempDir(async (dir) => {
      const ledger = new DirectoryQuotaLedger(dir);
      const window = randomUUID();
      await ledger.take(window, "x", 1, 1);
      expect(await ledger.prune(60_000)).toEqual([]);
      expect(await ledger.prune(60_000, Date.now() + 120_000)).toEqual([window]);
      await ledger.take(window, "x", 1, 1);
    });
  });
});
