import { describe, expect, it } from "vitest";
import { RequestRejectedError } from "../errors.js";
import { addressAttester, clientKeyAttester, testAttester } from "./attester.js";

const request = (attestation: string | undefined, address = "10.0.0.1") => ({
  attestation,
  address,
  round: "r",
});

describe("attesters and the quota ledger", () => {
  it("client-key: a known key gets its budget, an unknown one 403 not-attested, none 401", () => {
    const attester = clientKeyAttester({ "key-a": 3, "key-b": 1 });
    expect(attester.vouch(request("key-a"))).toMatchObject({ budget: 3 });
    expect(() => attester.vouch(request("key-c"))).toThrow(
      expect.objectContaining({ statusCode: 403, reason: "not-attested" }),
    );
    expect(() => attester.vouch(request(undefined))).toThrow(expect.objectContaining({ statusCode: 401 }));
    // The identity is a digest: the key itself is not kept as the quota's key.
    expect(JSON.stringify(attester.vouch(request("key-a")))).not.toMatch(/key-a/);
  });

  it("address: one identity per address; test: one per attestation id", () => {
    expect(addressAttester().vouch(request("anything", "10.0.0.2"))).toEqual({
      identity: "addr:10.0.0.2",
      budget: 1,
    });
    expect(testAttester(2).vouch(request("d1"))).toEqual({ identity: "device:d1", budget: 2 });
    expect(() => testAttester().vouch(request(""))).toThrow(RequestRejectedError);
  });
});
