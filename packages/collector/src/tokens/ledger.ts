import { createHash } from "node:crypto";
import { mkdir, open, readdir, rm, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { reject } from "../errors.js";

/**
 * The issuer's quota ledger: tokens handed out per (window, identity), so an
 * identity gets at most its budget per window. A window is a round (round
 * tokens) or a campaign (campaign tokens); an identity is the attester's
 * (`device:...`, `key:...`, `addr:...`) or, in a campaign round, the presented
 * campaign token's digest.
 */
export interface QuotaStore {
  /** Take `count` of `identity`'s `budget` in `window`, or 403 `quota-exhausted` with nothing taken. */
  take(window: string, identity: string, count: number, budget: number): Promise<void>;
  /** Drop a window's counts (its round is closed: its tokens are worthless now). */
  forget(window: string): Promise<void>;
  /** The windows it holds counts for (what a scheduled prune looks up: ledger-prune.ts). */
  windows(): Promise<string[]>;
}

function exhausted(budget: number, before: number, count: number): never {
  return reject(
    403,
    "quota-exhausted",
    `this device's budget is ${budget} token(s) per window; ${before} already issued, ${count} asked`,
  );
}

/**
 * The ledger in this process's memory: a restart, or a second issuer process,
 * starts a fresh count (use {@link DirectoryQuotaLedger} for either); the last
 * `keepWindows` windows are kept. O(1) per request.
 */
export class QuotaLedger implements QuotaStore {
  readonly #windows = new Map<string, Map<string, number>>();

  constructor(readonly keepWindows = 256) {}

  async take(window: string, identity: string, count: number, budget: number): Promise<void> {
    let used = this.#windows.get(window);
    if (!used) {
      used = new Map();
      this.#windows.set(window, used);
      if (this.#windows.size > this.keepWindows) this.#windows.delete(this.#windows.keys().next().value!);
    }
    const before = used.get(identity) ?? 0;
    if (before + count > budget) exhausted(budget, before, count);
    used.set(identity, before + count);
  }

  async forget(window: string): Promise<void> {
    this.#windows.delete(window);
  }

  async windows(): Promise<string[]> {
    return [...this.#windows.keys()];
  }
}

const WINDOW = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The ledger on disk, shared by issuer processes on one file system and kept
 * across restarts: window w's slot j of identity i is the file
 * `<dir>/<w>/<SHA-256(i)>.<j>`, claimed by an exclusive create (O_EXCL), so two
 * processes never both claim one slot and a restart sees every slot taken
 * before. Identities are stored as digests only. `take` claims free slots in
 * order and, when fewer than `count` are free, releases the ones it claimed (all
 * or nothing; a racing request may then be refused although the two together
 * would have fitted: conservative). Bounded by the window: `forget` removes a
 * window's directory (the issuer calls it when it sees the round closed), and
 * `prune` every window untouched for `maxAgeMs`. Cost per request: O(budget)
 * file creations at worst (one per slot already taken, plus `count`).
 */
export class DirectoryQuotaLedger implements QuotaStore {
  constructor(readonly dir: string) {}

  async take(window: string, identity: string, count: number, budget: number): Promise<void> {
    if (!WINDOW.test(window)) throw new Error(`quota ledger: not a window id: ${window}`);
    const folder = join(this.dir, window);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const prefix = createHash("sha256").update(identity).digest("hex");
    const claimed: string[] = [];
    for (let slot = 0; slot < budget && claimed.length < count; slot++) {
      const file = join(folder, `${prefix}.${slot}`);
      try {
        await (await open(file, "wx", 0o600)).close();
        claimed.push(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    if (claimed.length < count) {
      await Promise.all(claimed.map((file) => unlink(file).catch(() => undefined)));
      exhausted(budget, budget - claimed.length, count);
    }
  }

  async forget(window: string): Promise<void> {
    if (WINDOW.test(window)) await rm(join(this.dir, window), { recursive: true, force: true });
  }

  async windows(): Promise<string[]> {
    return (await readdir(this.dir).catch(() => [] as string[])).filter((name) => WINDOW.test(name));
  }

  /** Remove every window whose directory was last changed more than `maxAgeMs` ago; resolves with their ids. */
  async prune(maxAgeMs: number, now = Date.now()): Promise<string[]> {
    const old: string[] = [];
    for (const name of await this.windows()) {
      const info = await stat(join(this.dir, name)).catch(() => undefined);
      if (info && now - info.mtimeMs > maxAgeMs) old.push(name);
    }
    await Promise.all(old.map((name) => this.forget(name)));
    return old;
  }
}
