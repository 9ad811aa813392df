import { describe, expect, it } from "vitest";
import { checkKeyConsistency, type KeyToCheck } from "./key-consistency.js";

const keyId = Uint8Array.from({ length: 32 }, (_, i) => i);
const idHex = Array.from(keyId, (b) => b.toString(16).padStart(2, "0")).join("");
const round = "00000000-0000-4000-8000-000000000001";
const key: KeyToCheck = { round, scope: "round", keyId, challenge: "AAIAAA==" };

/** A fetch answering every request with `body` (200), remembering the URLs asked. */
function directory(body: unknown) {
  const asked: string[] = [];
  const fetch: typeof globalThis.fetch = async (url) => {
    asked.push(String(url));
    return new Response(JSON.stringify(body), { status: 200 });
  };
  return { asked, fetch };
}

const entry = { tokenType: 2, keyId: idHex, challenge: key.challenge };
const refused = { name: "KeyConsistencyError", reason: "key-inconsistent", keyId: idHex };

describe("checkKeyConsistency", () => {
  it("passes a key the directory lists for its window, and a pinned one (any hex case)", async () => {
    const d = directory({ round, scope: "round", keys: [entry] });
    await checkKeyConsistency(key, { directory: "https://collector.example/" }, { fetch: d.fetch });
    expect(d.asked).toEqual([`https://collector.example/v1/rounds/${round}/token-directory`]);
    await checkKeyConsistency(key, { pinnedKeyIds: ["ff".repeat(32), idHex.toUpperCase()] });
    const view = directory({ round, scope: "round", view: 3, campaign: "c", keys: [entry] });
    await checkKeyConsistency({ ...key, view: 3 }, { directory: "https://c.example" }, { fetch: view.fetch });
    expect(view.asked[0]).toMatch(/token-directory\?view=3$/);
    const campaign = directory({ round, scope: "campaign", keys: [entry] });
    await checkKeyConsistency({ ...key, scope: "campaign" }, { directory: "https://c.example" }, campaign);
    expect(campaign.asked[0]).toBe(`https://c.example/v1/campaigns/${round}/token-directory`);
  });

  it("refuses another key id, another challenge, another window or view, and an unpinned key", async () => {
    const check = (body: unknown, k: KeyToCheck = key) =>
      checkKeyConsistency(k, { directory: "https://c.example" }, directory(body));
    await expect(
      check({ round, scope: "round", keys: [{ ...entry, keyId: "ab".repeat(32) }] }),
    ).rejects.toMatchObject(refused);
    await expect(
      check({ round, scope: "round", keys: [{ ...entry, challenge: "AAIAAQ==" }] }),
    ).rejects.toMatchObject(refused);
    await expect(check({ round: "other", scope: "round", keys: [entry] })).rejects.toMatchObject(refused);
    await expect(check({ round, scope: "campaign", keys: [entry] })).rejects.toMatchObject(refused);
    await expect(
      check({ round, scope: "round", view: 1, keys: [entry] }, { ...key, view: 2 }),
    ).rejects.toMatchObject(refused);
    await expect(check({ round, scope: "round" })).rejects.toMatchObject(refused);
    await expect(checkKeyConsistency(key, { pinnedKeyIds: [] })).rejects.toMatchObject(refused);
  });
});
