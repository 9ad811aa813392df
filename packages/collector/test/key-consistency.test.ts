import { createServer, type Server } from "node:http";
import { join } from "node:path";
import {
  campaignView,
  checkKeyConsistency,
  fetchCampaignTokenKey,
  fetchTokenKey,
  KeyConsistencyError,
  obtainTokens,
} from "@calm-ldp/client/tokens";
import { afterAll, describe, expect, it } from "vitest";
import { testAttester } from "../src/index.js";
import {
  call,
  campaignToken,
  collectorWithIssuerApart,
  createBinaryCampaign,
  duckdbCollectors,
  mixedRound,
  suiteIssuers,
} from "./support.js";

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/**
 * A deliberately inconsistent issuer: requests carrying `x-device: victim` (a
 * cookie, an address: anything that singles a device out) go to issuer `victim`,
 * every other request to issuer `everyone`, so the victim gets its own token key
 * (and, on this origin, a directory that agrees with it). Plain HTTP pass-through.
 */
async function inconsistentIssuer(
  everyone: string,
  victim: string,
): Promise<{ url: string; server: Server }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const upstream = request.headers["x-device"] === "victim" ? victim : everyone;
    const answer = await fetch(`${upstream}${request.url}`, {
      method: request.method!,
      headers: { "content-type": "application/json" },
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, server };
}

/** The victim's HTTP: every request marked as the victim's. */
const asVictim: typeof fetch = (url, init) =>
  fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-device": "victim" } });

describe("key consistency: a device refuses a token key that is not everyone's", () => {
  const collectors = duckdbCollectors();
  const issuers = suiteIssuers();
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });
  /** A collector with its issuer apart (`honest`), a second issuer (`tagging`), and the inconsistent front of both. */
  async function setting(name: string) {
    const { collector, port } = await collectorWithIssuerApart(collectors, `${name}.duckdb`);
    const honest = await issuers.start(collector.url, { keyDir: join(collectors.dir, `${name}-a`), port });
    const tagging = await issuers.start(collector.url, { keyDir: join(collectors.dir, `${name}-b`) });
    const evil = await inconsistentIssuer(honest.url, tagging.url);
    servers.push(evil.server);
    return { collector, honest, evil };
  }

  it("issuer apart: the collector serves the keys it verifies with; a victim's own key is refused against it or a pin", async () => {
    const { collector, honest, evil } = await setting("consistency");
    const { round } = await mixedRound(collector.url, 1000, 1);

    // The directory: the same key id at the issuer and at the collector, the id every token carries.
    const key = await fetchTokenKey(honest.url, round);
    const atIssuer = (await call(`${honest.url}/v1/rounds/${round}/token-directory`, "GET")).body;
    const atCollector = (await call(`${collector.url}/v1/rounds/${round}/token-directory`, "GET")).body;
    expect(atCollector).toEqual(atIssuer);
    expect(atCollector).toEqual({
      round,
      scope: "round",
      keys: [{ tokenType: 2, keyId: hex(key.keyId), challenge: key.challenge }],
    });
    const [token] = await obtainTokens(honest.url, key, 1, { attestation: "d0" });
    expect(hex(Buffer.from(token!, "base64").subarray(66, 98))).toBe(hex(key.keyId));

    // Through the inconsistent issuer: everyone's key passes the check against the collector...
    const second = { directory: collector.url };
    const everyone = await fetchTokenKey(evil.url, round, { consistency: second });
    expect(hex(everyone.keyId)).toBe(hex(key.keyId));
    // ...the victim's own key does not, nor against the pinned id of everyone's key.
    const refused = { name: "KeyConsistencyError", reason: "key-inconsistent" };
    await expect(
      fetchTokenKey(evil.url, round, { fetch: asVictim, consistency: second }),
    ).rejects.toMatchObject(refused);
    const pinned = { pinnedKeyIds: [hex(key.keyId)] };
    await expect(fetchTokenKey(evil.url, round, { fetch: asVictim, consistency: pinned })).rejects.toThrow(
      KeyConsistencyError,
    );
    expect(hex((await fetchTokenKey(evil.url, round, { consistency: pinned })).keyId)).toBe(hex(key.keyId));

    // What the check guards against: unchecked, or checked against the issuer's own origin, the
    // victim takes its own key (another id than everyone's) and would spend tokens that single it out.
    const unchecked = await fetchTokenKey(evil.url, round, { fetch: asVictim });
    expect(hex(unchecked.keyId)).not.toBe(hex(key.keyId));
    const sameOrigin = await fetchTokenKey(evil.url, round, {
      fetch: asVictim,
      consistency: { directory: evil.url },
    });
    expect(hex(sameOrigin.keyId)).toBe(hex(unchecked.keyId));
    // A directory that answers for another window is refused too.
    const other = await mixedRound(collector.url, 1000, 2);
    await expect(checkKeyConsistency({ ...key, round: other.round }, second)).rejects.toMatchObject(refused);
  });

  it("campaigns: the campaign key and each view's round key are checked the same way", async () => {
    const { collector, honest, evil } = await setting("consistency-campaign");
    const { campaign, round, plan } = await createBinaryCampaign(collector.url);
    const second = { directory: collector.url };
    const campaignKey = await fetchCampaignTokenKey(evil.url, campaign, { consistency: second });
    await expect(
      fetchCampaignTokenKey(evil.url, campaign, { fetch: asVictim, consistency: second }),
    ).rejects.toMatchObject({ reason: "key-inconsistent" });
    const token = await campaignToken(honest.url, campaign, "device-1");
    expect(hex(Buffer.from(token, "base64").subarray(66, 98))).toBe(hex(campaignKey.keyId));
    const view = await campaignView(token, plan.views.length);
    const viewKey = await fetchTokenKey(evil.url, round, { view, consistency: second });
    expect(viewKey.view).toBe(view);
    await expect(
      fetchTokenKey(evil.url, round, { view, fetch: asVictim, consistency: second }),
    ).rejects.toMatchObject({ reason: "key-inconsistent" });
    // The directory of a campaign round needs the view, as its token-key route does.
    const noView = await call(`${collector.url}/v1/rounds/${round}/token-directory`, "GET");
    expect(noView).toMatchObject({ status: 400, body: { reason: "view-required" } });
  });

  it("issuer inside the collector: its directory names the key it hands out (a pin is the device's check)", async () => {
    const { collector } = await collectors.start("consistency-inside.duckdb", {
      tokens: { attester: testAttester() },
    });
    const { round } = await mixedRound(collector.url, 1000, 3);
    const key = await fetchTokenKey(collector.url, round, { consistency: { directory: collector.url } });
    const directory = (await call(`${collector.url}/v1/rounds/${round}/token-directory`, "GET")).body;
    expect(directory).toMatchObject({ keys: [{ keyId: hex(key.keyId) }] });
    await expect(
      fetchTokenKey(collector.url, round, { consistency: { pinnedKeyIds: ["00".repeat(32)] } }),
    ).rejects.toMatchObject({ reason: "key-inconsistent" });
    await call(`${collector.url}/v1/rounds/${round}/close`, "POST", {});
    const closed = await call(`${collector.url}/v1/rounds/${round}/token-directory`, "GET");
    expect(closed).toMatchObject({ status: 409, body: { reason: "round-closed" } });
  });
});
