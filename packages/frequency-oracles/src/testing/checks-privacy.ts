import {
  declaredSupportMismatch,
  EXACT_PRIVACY_TOLERANCE,
  empiricalAudit,
  exactWorstLogRatio,
  exactWorstPair,
  samplerFit,
} from "@calm-ldp/frequency-oracles";
import { expect } from "vitest";
import type { OracleCheck } from "./context.js";

/**
 * The privacy half of the contract: the declaration (p, q, variance formulas), the
 * exact check of the declared law, the declaration against the law, the sampler
 * against the law on every input and path, and the empirical audit of several pairs.
 */
export const privacyChecks: readonly OracleCheck[] = [
  {
    name: "declares consistent parameters and variance formulas",
    run: ({ oracle, factory, eps, domain }) => {
      expect(oracle.eps).toBe(eps);
      expect(oracle.domain).toBe(domain);
      expect(oracle.p).toBeGreaterThan(oracle.q);
      const { p, q } = oracle;
      const n = 12_345;
      expect(oracle.variance(n)).toBeCloseTo((q * (1 - q)) / (n * (p - q) ** 2), 15);
      expect(Math.abs(oracle.variance(n, 0) - oracle.variance(n)) / oracle.variance(n)).toBeLessThan(1e-12);
      const f = 0.3;
      const exact = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2);
      expect(Math.abs(oracle.variance(n, f) - exact) / exact).toBeLessThan(1e-12);
      expect(factory({ eps: eps * 1.5, domain }).fingerprint).not.toBe(oracle.fingerprint);
      expect(factory({ eps, domain }).fingerprint).toBe(oracle.fingerprint);
    },
  },
  {
    name: "passes the exact privacy check of its declared law (worst log-ratio <= eps + 1e-9)",
    run: ({ oracle, eps }) => {
      const worst = exactWorstLogRatio(oracle);
      expect(worst).toBeLessThanOrEqual(eps + EXACT_PRIVACY_TOLERANCE);
      expect(worst).toBeGreaterThan(0);
    },
  },
  {
    name: "declares the p and q its law implies (exact, every input and value)",
    run: ({ oracle }) => {
      expect(declaredSupportMismatch(oracle)).toBeUndefined();
    },
  },
  {
    name: "samples its declared law on every input and path (goodness of fit, Bonferroni at alpha = 1e-6)",
    run: ({ oracle, device, rngFor, settings }) => {
      const fit = samplerFit(oracle, { device, reports: settings.fitReports, rng: rngFor(8) });
      const shown = fit.failures
        .slice(0, 5)
        .map((t) => `${t.path}: ${t.name}: p = ${t.pValue} (${t.detail})`);
      expect(shown, `${fit.failures.length} of ${fit.tests} tests below ${fit.threshold}`).toEqual([]);
    },
  },
  {
    name: "passes the empirical audit of its real sampler on (0, D-1), the exact law's worst pair and (0, 1) (99.99 % lower bound <= eps)",
    run: ({ oracle, eps, domain, rngFor, settings }) => {
      const pairs = new Map<string, readonly [number, number]>();
      for (const pair of [[0, domain - 1], exactWorstPair(oracle).pair, [0, 1]] as const) {
        const [a, b] = pair[0] < pair[1] ? pair : [pair[1], pair[0]];
        pairs.set(`${a},${b}`, [a, b]);
      }
      let index = 0;
      for (const pair of pairs.values()) {
        const audit = empiricalAudit(oracle, {
          samples: settings.auditSamples,
          pair,
          rng: rngFor(16 + index++),
        });
        expect(audit.epsLower, `pair (${pair}): 99.99 % lower bound`).toBeLessThanOrEqual(eps);
        expect(Number.isFinite(audit.epsLower)).toBe(true);
      }
    },
  },
];
