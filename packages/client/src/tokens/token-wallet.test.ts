import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ReporterStorage } from "../api.js";
import { encodeBase64 } from "../base64.js";
import { memoryStorage } from "../storage.js";
import { openTokenWallet } from "./token-wallet.js";
import { reportIdOfToken, TOKEN_BYTES } from "./wire.js";

/** A token-shaped random string (the wallet checks the length; signatures are the issuer's and collector's business). */
const fakeToken = () => encodeBase64(new Uint8Array(randomBytes(TOKEN_BYTES)));
const idOf = (token: string) => reportIdOfToken(new Uint8Array(Buffer.from(token, "base64")));

/** An `obtain` that hands out fresh tokens and counts its calls (the issuer requests a device would make). */
function issuer() {
  const handed: string[] = [];
  return {
    handed,
    obtain: async () => {
      handed.push(fakeToken());
      return handed.at(-1)!;
    },
  };
}

describe("openTokenWallet: a device's campaign and round tokens kept across restarts", () => {
  it("obtains each token once; a reopened wallet on the same storage asks for none again", async () => {
    const storage = memoryStorage();
    const campaignIssuer = issuer();
    const roundIssuer = issuer();
    const first = await openTokenWallet(storage, "c1");
    expect(first.start).toBe("new");
    const ct = await first.campaignToken(campaignIssuer.obtain);
    expect(await first.campaignToken(campaignIssuer.obtain)).toBe(ct);
    const r1 = await first.roundToken("round-1", roundIssuer.obtain);
    expect(r1.id).toBe(await idOf(r1.token));
    expect(first.tokenOfReport(r1.id)).toBe(r1.token);

    // A reload: the same storage, a new wallet.
    const again = await openTokenWallet(storage, "c1");
    expect(again.start).toBe("restored");
    expect(await again.campaignToken(campaignIssuer.obtain)).toBe(ct);
    expect(await again.roundToken("round-1", roundIssuer.obtain)).toEqual(r1);
    expect(again.tokenOfReport(r1.id)).toBe(r1.token);
    const r2 = await again.roundToken("round-2", roundIssuer.obtain);
    expect(r2.token).not.toBe(r1.token);
    expect([campaignIssuer.handed.length, roundIssuer.handed.length]).toEqual([1, 2]);
    // Another campaign's wallet in the same storage is its own.
    const other = await openTokenWallet(storage, "c2");
    expect(other.start).toBe("new");
    expect(await other.campaignToken(campaignIssuer.obtain)).not.toBe(ct);
  });

  it("a broken variant that does not persist would ask the issuer again after a reload (what the storage prevents)", async () => {
    const forgetful: ReporterStorage = { read: async () => undefined, write: async () => {} };
    const campaignIssuer = issuer();
    await (await openTokenWallet(forgetful, "c")).campaignToken(campaignIssuer.obtain);
    await (await openTokenWallet(forgetful, "c")).campaignToken(campaignIssuer.obtain);
    expect(campaignIssuer.handed.length).toBe(2);
  });

  it("concurrent calls for one round share one request", async () => {
    const wallet = await openTokenWallet(memoryStorage(), "c");
    const roundIssuer = issuer();
    const [a, b] = await Promise.all([
      wallet.roundToken("r", roundIssuer.obtain),
      wallet.roundToken("r", roundIssuer.obtain),
    ]);
    expect(a).toEqual(b);
    expect(roundIssuer.handed.length).toBe(1);
  });

  it("keeps the tokens of the latest keepRounds rounds and the campaign token", async () => {
    const storage = memoryStorage();
    const wallet = await openTokenWallet(storage, "c", { keepRounds: 2 });
    const roundIssuer = issuer();
    const ct = await wallet.campaignToken(issuer().obtain);
    const held = [];
    for (const round of ["r1", "r2", "r3"]) held.push(await wallet.roundToken(round, roundIssuer.obtain));
    expect(wallet.tokenOfReport(held[0]!.id)).toBeUndefined();
    expect(wallet.tokenOfReport(held[2]!.id)).toBe(held[2]!.token);
    const reopened = await openTokenWallet(storage, "c", { keepRounds: 2 });
    expect(reopened.tokenOfReport(held[0]!.id)).toBeUndefined();
    expect(reopened.tokenOfReport(held[1]!.id)).toBe(held[1]!.token);
    expect(await reopened.campaignToken(issuer().obtain)).toBe(ct);
    await expect(openTokenWallet(storage, "c", { keepRounds: 0 })).rejects.toThrow(/keepRounds/);
  });

  it("a failed write throws and keeps nothing; a corrupt state or a malformed token is refused", async () => {
    let fail = true;
    const inner = memoryStorage();
    const flaky: ReporterStorage = {
      read: inner.read,
      write: async (key, value) => {
        if (fail) throw new Error("quota exceeded");
        await inner.write(key, value);
      },
    };
    const wallet = await openTokenWallet(flaky, "c");
    const roundIssuer = issuer();
    await expect(wallet.roundToken("r", roundIssuer.obtain)).rejects.toThrow(/quota exceeded/);
    fail = false;
    const held = await wallet.roundToken("r", roundIssuer.obtain);
    expect(held.token).toBe(roundIssuer.handed[1]);

    await inner.write("calm-ldp-tokens:c", "{not json");
    expect((await openTokenWallet(inner, "c")).start).toBe("corrupt");
    const stored = { tag: "calm-ldp-tokens/1", campaign: "c", rounds: [["r", "AAAA"]] };
    await inner.write("calm-ldp-tokens:c", JSON.stringify(stored));
    expect((await openTokenWallet(inner, "c")).start).toBe("corrupt");
    await expect(wallet.campaignToken(async () => "not a token")).rejects.toThrow(/campaign token/);
  });

  it("send adds each report's token by its id (none for an unknown id)", async () => {
    const wallet = await openTokenWallet(memoryStorage(), "c");
    const held = await wallet.roundToken("r", issuer().obtain);
    const bodies: unknown[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(JSON.stringify({ acknowledged: 2, stored: 2, duplicates: 0 }));
    }) as typeof globalThis.fetch;
    const unknown = "00000000-0000-4000-8000-000000000000";
    await wallet.send("http://collector.invalid", { fetch })("r", [
      { id: held.id, view: 1, value: 0 },
      { id: unknown, view: 1, value: 0 },
    ]);
    expect(bodies).toEqual([
      {
        round: "r",
        reports: [
          { id: held.id, view: 1, value: 0, token: held.token },
          { id: unknown, view: 1, value: 0 },
        ],
      },
    ]);
  });
});
