import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { DeviceOracle, FrequencyOracle, OracleOptions } from "./api.js";
import { defineDeviceOracle } from "./device-oracle.js";
import { InvalidParameterError, MalformedReportError } from "./errors.js";
import { exactWorstLogRatio } from "./exact-privacy.js";
import { createGrr, createGrrDevice } from "./grr.js";
import { createOue, createOueDevice } from "./oue.js";
import { createSue, createSueDevice } from "./sue.js";

/**
 * The device oracles (what @calm-ldp/client runs) are the full oracles' device
 * side: same parameters, fingerprint and output law, and the SAME report from the
 * same random words, so every audit of createGrr/createOue/createSue (exact and
 * empirical, audit.test.ts) is an audit of what the device draws.
 */
const pairs: [string, (o: OracleOptions) => FrequencyOracle, (o: OracleOptions) => DeviceOracle][] = [
  ["grr", createGrr, createGrrDevice],
  ["oue", createOue, createOueDevice],
  ["sue", createSue, createSueDevice],
];

describe("device oracles", () => {
  for (const [name, full, device] of pairs) {
    it(`${name}: the device side of the full oracle (parameters, law, identical draws, support test)`, () => {
      for (const options of [
        { eps: 1, domain: 2 },
        { eps: 0.5, domain: 7 },
        { eps: 3, domain: 40 },
      ]) {
        const f = full(options);
        const d = device(options);
        for (const key of [
          "id",
          "mechanism",
          "eps",
          "domain",
          "p",
          "q",
          "stride",
          "fingerprint",
          "parameterText",
        ])
          expect(d[key as keyof DeviceOracle], key).toEqual(f[key as keyof FrequencyOracle]);
        expect(d.parameters).toEqual(f.parameters);
        expect(exactWorstLogRatio(d)).toBe(exactWorstLogRatio(f));
        expect(exactWorstLogRatio(d)).toBeLessThanOrEqual(options.eps + 1e-9);
        const a = seededRng(11);
        const b = seededRng(11);
        for (let i = 0; i < 2000; i++) {
          const value = i % options.domain;
          const fromDevice = d.perturb(value, a);
          expect(fromDevice).toEqual(f.perturb(value, b));
          for (let x = 0; x < options.domain; x++)
            expect(d.supports(fromDevice, x)).toBe(f.supports(fromDevice as never, x));
        }
        // The full oracle decodes what the device side draws (one wire format, one fingerprint).
        const report = d.perturb(1, a);
        expect(f.decode(f.encode(report as never))).toEqual(report);
      }
    });
  }

  it("bad input: the same typed errors as the full oracles", () => {
    expect(() => createGrrDevice({ eps: 0, domain: 4 })).toThrow(InvalidParameterError);
    expect(() => createOueDevice({ eps: 1, domain: 1 })).toThrow(/createOue/);
    expect(() => createSueDevice(null as never)).toThrow(/createSue: options must be an object/);
    const grr = createGrrDevice({ eps: 1, domain: 4 });
    expect(() => grr.perturb(4)).toThrow(InvalidParameterError);
    expect(() => grr.supports(9, 0)).toThrow(MalformedReportError);
    const oue = createOueDevice({ eps: 1, domain: 4 });
    expect(() => oue.supports(new Uint32Array([0xff]), 0)).toThrow(/bits at or beyond D = 4/);
    expect(() =>
      defineDeviceOracle({
        id: "Bad Id",
        eps: 1,
        domain: 2,
        p: 0.7,
        q: 0.3,
        perturbInto: () => {},
        supportsAt: () => false,
        privacyLaw: () => {
          throw new Error("unused");
        },
      }),
    ).toThrow(/defineDeviceOracle: id must be 1\.\.32 characters/);
  });

  it("a device oracle has no server paths", () => {
    const d = createOueDevice({ eps: 1, domain: 8 }) as unknown as Record<string, unknown>;
    for (const member of ["createAggregator", "estimate", "simulateCounts", "encode", "decode"])
      expect(d[member], member).toBeUndefined();
  });
});
