import { createCoefficientIndex } from "@calm-ldp/hadamard";
import { createSchema, encodedAttributes, uniformSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { encodingRuntime } from "./encoding.js";
import { groupIndex } from "./group-index.js";
import {
  forEachColexSet,
  inputCoefficientCount,
  inputEntries,
  marginalEntries,
} from "./hadamard-coefficient-entries.js";
import { mixedSchema } from "./test-support.js";

describe("InpHT coefficient entries", () => {
  it("enumerates subsets in the rank order of hadamard's coefficient index", () => {
    const index = createCoefficientIndex(9, 4);
    let count = 0;
    forEachColexSet(9, 4, (set, rank) => {
      expect(index.rank(set)).toBe(rank);
      count++;
    });
    expect(count).toBe(index.size);
  });

  it("for binary data, entry e is the coefficient of rank e (|T| = sum C(d, w))", () => {
    const runtime = encodingRuntime(uniformSchema(8));
    const entries = inputEntries(runtime, 3);
    expect(entries.size).toBe(8 + 28 + 56);
    expect(inputCoefficientCount(runtime.bits, 3)).toBe(92);
    const index = createCoefficientIndex(8, 3);
    for (let e = 0; e < entries.size; e++) {
      let expected = 0;
      for (const a of index.unrank(e)) expected |= 1 << (7 - a);
      expect(entries.masks[e]).toBe(expected);
    }
  });

  it("non-binary: one entry per non-empty bit set touching 1..k attributes, and lookup finds each", () => {
    const schema = mixedSchema(); // bits 2, 1, 2, 3
    const runtime = encodingRuntime(schema);
    const entries = inputEntries(runtime, 2);
    // brute force: non-empty masks over 8 bits whose touched attributes number <= 2
    const groups = [0xc0, 0x20, 0x18, 0x07];
    const valid: number[] = [];
    for (let m = 1; m < 256; m++) if (groups.filter((g) => (m & g) !== 0).length <= 2) valid.push(m);
    expect(entries.size).toBe(valid.length);
    expect(inputCoefficientCount(runtime.bits, 2)).toBe(valid.length);
    expect(new Set(entries.masks).size).toBe(valid.length);
    for (const m of entries.masks) expect(valid).toContain(m);
    // lookup: local coefficient m over the query's bits -> the entry with that global mask
    const query = [0, 3];
    const bits = encodedAttributes(runtime.encoding, query);
    const lookup = entries.lookup(query);
    for (let m = 1; m < 2 ** bits.length; m++) {
      let global = 0;
      bits.forEach((b, i) => {
        if ((m >>> (bits.length - 1 - i)) & 1) global |= 1 << (7 - b);
      });
      expect(entries.masks[lookup[m]!]).toBe(global);
    }
    expect(() => entries.lookup([0, 1, 2])).toThrow(/at most k = 2/);
  });

  it("MargHT entries: each group's non-empty local masks, contiguous", () => {
    const runtime = encodingRuntime(
      createSchema([3, 2, 2].map((c, i) => ({ name: `x${i}`, cardinality: c }))),
    );
    const groups = groupIndex(3, 2);
    const entries = marginalEntries(runtime, groups);
    // groups {0,1}: 3 bits, {0,2}: 3 bits, {1,2}: 2 bits -> 7 + 7 + 3 entries
    expect(entries.size).toBe(17);
    expect(Array.from(entries.groupOffsets)).toEqual([0, 7, 14, 17]);
    // group {1,2} local mask 0b11 = bits 2 and 3 -> global positions 1 and 0
    expect(entries.masks[14 + 3 - 1]).toBe(0b11);
  });
});
