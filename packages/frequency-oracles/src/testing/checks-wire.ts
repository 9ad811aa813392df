import { InvalidParameterError, MalformedReportError } from "@calm-ldp/frequency-oracles";
import { expect } from "vitest";
import type { OracleCheck } from "./context.js";
import { contractHistogram, valuesFromHistogram } from "./histogram.js";

/**
 * The server half of the contract: the wire format (round trip, every corruption
 * rejected with MalformedReportError and nothing counted, seeded random garbage),
 * the aggregator (batch = one by one = merged halves, foreign input rejected,
 * invalid input rejected) and the default cryptographic source.
 */
export const wireChecks: readonly OracleCheck[] = [
  {
    name: "round-trips reports through the wire format and rejects every corruption",
    run: ({ oracle, factory, eps, domain, rngFor }) => {
      const rng = rngFor(5);
      const values = Uint32Array.from({ length: 200 }, (_, i) => i % domain);
      const batch = oracle.perturbBatch(values, rng);
      for (let i = 0; i < batch.count; i++) {
        const report = oracle.reportAt(batch, i);
        const bytes = oracle.encode(report);
        const decoded = oracle.decode(bytes);
        expect(oracle.encode(decoded)).toEqual(bytes);
        for (let x = 0; x < domain; x++) {
          expect(oracle.supports(decoded, x)).toBe(oracle.supportsAt(batch.words, i * batch.stride, x));
        }
      }
      const bytes = oracle.encode(oracle.reportAt(batch, 0));
      const expectProblem = (input: unknown, problem: string) => {
        const aggregator = oracle.createAggregator();
        let thrown: unknown;
        try {
          aggregator.addEncoded(input as Uint8Array);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(MalformedReportError);
        expect((thrown as MalformedReportError).problem).toBe(problem);
        expect(() => oracle.decode(input as Uint8Array)).toThrow(MalformedReportError);
        expect(aggregator.reports).toBe(0);
      };
      expectProblem("not bytes", "type");
      expectProblem(bytes.subarray(0, 2), "length");
      expectProblem(bytes.subarray(0, bytes.length - 1), "length");
      expectProblem(Uint8Array.of(...bytes, 0), "length");
      const badMagic = bytes.slice();
      badMagic[0] = 0x00;
      expectProblem(badMagic, "magic");
      const badVersion = bytes.slice();
      badVersion[1] = 99;
      expectProblem(badVersion, "version");
      const otherId = bytes.slice();
      otherId[3] = otherId[3] === 0x7a ? 0x79 : otherId[3]! + 1;
      expectProblem(otherId, "oracle");
      const otherFingerprint = bytes.slice();
      otherFingerprint[3 + oracle.id.length]! ^= 0x01;
      expectProblem(otherFingerprint, "fingerprint");
      const foreign = factory({ eps: eps * 1.5, domain });
      expect(() => foreign.decode(bytes)).toThrow(MalformedReportError);
      // All-ones payload: either a report the oracle can produce, or rejected as a value problem.
      const ones = bytes.slice();
      ones.fill(0xff, 7 + oracle.id.length);
      try {
        const decoded = oracle.decode(ones);
        expect(oracle.encode(decoded)).toEqual(ones);
      } catch (error) {
        expect(error).toBeInstanceOf(MalformedReportError);
        expect((error as MalformedReportError).problem).toBe("value");
      }
    },
  },
  {
    name: "never crashes on, and never counts, random garbage (seeded fuzzing)",
    run: ({ oracle, rngFor }) => {
      const rng = rngFor(6);
      const valid = oracle.encode(oracle.perturb(0, rng));
      const aggregator = oracle.createAggregator();
      let accepted = 0;
      for (let trial = 0; trial < 2000; trial++) {
        let input: Uint8Array;
        if (trial % 2 === 0) {
          input = new Uint8Array(rng.nextUint32() % 40);
          for (let i = 0; i < input.length; i++) input[i] = rng.nextUint32() & 0xff;
        } else {
          input = valid.slice();
          const flips = 1 + (rng.nextUint32() % 3);
          for (let f = 0; f < flips; f++) input[rng.nextUint32() % input.length] = rng.nextUint32() & 0xff;
        }
        const before = aggregator.reports;
        try {
          aggregator.addEncoded(input);
          accepted += 1;
          // Whatever was accepted is a report the oracle can produce, byte for byte.
          expect(oracle.encode(oracle.decode(input))).toEqual(input);
          expect(aggregator.reports).toBe(before + 1);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedReportError);
          expect(aggregator.reports).toBe(before);
        }
      }
      expect(aggregator.reports).toBe(accepted);
    },
  },
  {
    name: "aggregates additively: batch = one by one = merged halves; foreign input rejected",
    run: ({ oracle, factory, eps, domain, rngFor }) => {
      const rng = rngFor(7);
      const values = valuesFromHistogram(contractHistogram(domain, 3000));
      const batch = oracle.perturbBatch(values, rng);
      const whole = oracle.createAggregator();
      whole.addBatch(batch);
      const direct = new Float64Array(domain);
      for (let i = 0; i < batch.count; i++) {
        for (let x = 0; x < domain; x++)
          if (oracle.supportsAt(batch.words, i * batch.stride, x)) direct[x]! += 1;
      }
      expect(whole.counts(), "counts are the numbers of supporting reports").toEqual(direct);
      const oneByOne = oracle.createAggregator();
      for (let i = 0; i < batch.count; i++) oneByOne.add(oracle.reportAt(batch, i));
      expect(oneByOne.counts()).toEqual(whole.counts());
      const half = Math.floor(batch.count / 2);
      const first = oracle.createAggregator();
      const second = oracle.createAggregator();
      first.addBatch({ ...batch, count: half, words: batch.words.subarray(0, half * batch.stride) });
      second.addBatch({
        ...batch,
        count: batch.count - half,
        words: batch.words.subarray(half * batch.stride),
      });
      first.merge(second);
      expect(first.reports).toBe(whole.reports);
      expect(first.counts()).toEqual(whole.counts());
      expect(first.estimate()).toEqual(whole.estimate());
      const simulated = oracle.simulateCounts(contractHistogram(domain, 500), rng);
      first.addCounts(simulated, 500);
      const expected = whole.counts().map((c, x) => c + simulated[x]!);
      expect(first.counts()).toEqual(expected);
      expect(first.reports).toBe(whole.reports + 500);

      const foreign = factory({ eps: eps * 1.5, domain });
      expect(() => whole.merge(foreign.createAggregator())).toThrow(MalformedReportError);
      expect(() => whole.addBatch(foreign.perturbBatch(values.subarray(0, 10), rng))).toThrow(
        MalformedReportError,
      );
      expect(() => oracle.perturb(domain, rng)).toThrow(InvalidParameterError);
      expect(() => oracle.perturb(-1, rng)).toThrow(InvalidParameterError);
      expect(() => oracle.perturb(0.5, rng)).toThrow(InvalidParameterError);
      expect(() => oracle.perturbBatch([0, domain], rng)).toThrow(InvalidParameterError);
      expect(() => oracle.simulateCounts(new Float64Array(domain + 1), rng)).toThrow(InvalidParameterError);
      expect(() => oracle.estimate(new Float64Array(domain), 0)).toThrow(InvalidParameterError);
      expect(whole.reports).toBe(batch.count);
    },
  },
  {
    name: "uses a cryptographic source when no rng is given",
    run: ({ oracle, domain }) => {
      const report = oracle.perturb(domain - 1);
      const aggregator = oracle.createAggregator();
      aggregator.add(report);
      aggregator.addBatch(oracle.perturbBatch([0, domain - 1]));
      expect(aggregator.reports).toBe(3);
    },
  },
];
