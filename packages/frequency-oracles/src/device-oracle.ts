import { defaultCryptoRng, type Rng } from "@calm-ldp/random";
import type { DeviceOracle, OracleCore, ResolvedOracleCore } from "./api.js";
import { fail, malformed } from "./errors.js";
import { fnv1a32, parameterText } from "./fingerprint.js";
import { checkDomain, checkEps, checkValue } from "./params.js";
import { isWireId } from "./wire.js";

/**
 * The device side of an oracle from its core (see {@link DeviceOracle}): the
 * core's checks and defaults, the fingerprint, `perturb` with the default random
 * source (random's shared `defaultCryptoRng()`), `supports` and the
 * exact output law; nothing of the server paths. `defineOracle` builds every full
 * oracle on it, so a device oracle and the full oracle of one core draw the same
 * reports from the same random words. O(1) to build.
 */
export function defineDeviceOracle<Report>(spec: OracleCore<Report>): DeviceOracle<Report> {
  return Object.freeze(deviceParts("defineDeviceOracle", spec).device);
}

/** @internal The device oracle of a core and what `defineOracle` builds the rest with. */
export function deviceParts<Report>(where: string, spec: OracleCore<Report>) {
  const core = withDefaults(where, spec);
  if (typeof core.id !== "string" || !isWireId(core.id))
    fail(where, "id must be 1..32 characters of [a-z0-9-]", core.id);
  if (typeof core.mechanism !== "string" || !isWireId(core.mechanism)) {
    fail(where, "mechanism must be 1..32 characters of [a-z0-9-]", core.mechanism);
  }
  checkEps(where, core.eps);
  checkDomain(where, core.domain);
  if (!(core.p >= 0 && core.p <= 1 && core.q >= 0 && core.q <= 1 && core.p > core.q)) {
    fail(where, "p and q must be probabilities with p > q", [core.p, core.q]);
  }
  if (!Number.isInteger(core.stride) || core.stride < 1 || core.stride > 2 ** 20) {
    fail(where, "stride must be an integer in [1, 2^20]", core.stride);
  }
  const parameters: Readonly<Record<string, number>> = Object.freeze({ ...(core.parameters ?? {}) });
  for (const [name, value] of Object.entries(parameters)) {
    if (!/^[a-z][a-zA-Z0-9]*$/.test(name) || !Number.isFinite(value)) {
      fail(where, "parameters must map simple names to finite numbers", `${name}=${value}`);
    }
  }
  const text = parameterText(core.id, core.mechanism, core.domain, core.eps, parameters);
  const fingerprint = fnv1a32(text);
  const { id, domain, stride, p, q } = core;
  const scratch = new Uint32Array(stride);
  const rngOf = (rng: Rng | undefined): Rng => rng ?? defaultCryptoRng();

  /** The report packed into the shared scratch words, checked (MalformedReportError `value`). */
  const packChecked = (method: string, report: Report): Uint32Array => {
    core.toWords(report, scratch, 0);
    const problem = core.checkWords(scratch, 0);
    if (problem !== undefined) malformed(`${id}.${method}`, "value", problem);
    return scratch;
  };

  const device: DeviceOracle<Report> = {
    id,
    mechanism: core.mechanism,
    eps: core.eps,
    domain,
    p,
    q,
    stride,
    parameters,
    fingerprint,
    parameterText: text,

    perturb(value: number, rng?: Rng): Report {
      checkValue(`${id}.perturb`, value, domain);
      const out = new Uint32Array(stride);
      core.perturbInto([value], 0, 1, out, rngOf(rng));
      return core.fromWords(out, 0);
    },

    supports(report: Report, value: number): boolean {
      checkValue(`${id}.supports`, value, domain);
      return core.supportsAt(packChecked("supports", report), 0, value);
    },

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      core.supportsAt(words, offset, value),

    privacyLaw: () => core.privacyLaw(),
  };
  return { core, device, scratch, rngOf, packChecked };
}

/**
 * Fill in a core's defaults: `mechanism` = id, `stride` = 1, and, when it leaves
 * out all three of `toWords`/`fromWords`/`checkWords`, the one-word codec (a
 * report is an integer in [0, outputs), default outputs = D) with its one-loop
 * `firstInvalid`. A core gives all three codec members or none. O(1).
 */
function withDefaults<Report>(where: string, spec: OracleCore<Report>): ResolvedOracleCore<Report> {
  if (spec == null || typeof spec !== "object") fail(where, "the core must be an object", spec);
  const mechanism = spec.mechanism ?? spec.id;
  const stride = spec.stride ?? 1;
  const given = [spec.toWords, spec.fromWords, spec.checkWords].filter((f) => f !== undefined).length;
  // The resolved core delegates to the given one (its prototype), so class-based cores keep their methods.
  const resolved = Object.create(spec) as ResolvedOracleCore<Report>;
  if (given === 3) return Object.assign(resolved, { mechanism, stride });
  if (given !== 0)
    fail(where, "give all of toWords, fromWords and checkWords, or none (the one-word codec)", given);
  if (stride !== 1)
    fail(where, "the one-word codec (no toWords/fromWords/checkWords) needs stride 1", stride);
  const outputs = spec.outputs ?? spec.domain;
  if (!Number.isInteger(outputs) || outputs < 1 || outputs > 2 ** 32)
    fail(where, "outputs must be an integer in [1, 2^32]", outputs);
  const id = spec.id;
  return Object.assign(resolved, {
    mechanism,
    stride,
    firstInvalid:
      spec.firstInvalid ??
      ((words: Uint32Array, count: number): number => {
        for (let i = 0; i < count; i++) if (words[i]! >= outputs) return i;
        return -1;
      }),
    toWords(report: Report, out: Uint32Array, offset: number): void {
      if (typeof report !== "number" || report >>> 0 !== report) {
        malformed(
          `${id}.toWords`,
          "type",
          `a ${id} report is an integer in [0, ${outputs}) (got ${String(report)})`,
        );
      }
      out[offset] = report as number;
    },
    fromWords: (words: Uint32Array, offset: number): Report => words[offset]! as Report,
    checkWords(words: Uint32Array, offset: number): string | undefined {
      const value = words[offset]!;
      return value < outputs ? undefined : `reported value ${value} is not in [0, ${outputs})`;
    },
  });
}
