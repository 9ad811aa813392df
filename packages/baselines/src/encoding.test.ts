import {
  contingencyTable,
  createRecordStore,
  decodeTable,
  encodeStore,
  recordAt,
} from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import {
  decodeAnswer,
  encodedQuery,
  encodeTable,
  encodingRuntime,
  recordMask,
  storeMasks,
} from "./encoding.js";
import { chainStore, mixedSchema } from "./test-support.js";

describe("encoding runtime", () => {
  const schema = mixedSchema();
  const runtime = encodingRuntime(schema);
  const store = chainStore(seededRng(3), 200, schema);

  it("packs a record's bits so the single word is the record's code, attribute 0's top bit highest", () => {
    expect(runtime.totalBits).toBe(8);
    expect(runtime.stride).toBe(1);
    const out = new Uint32Array(1);
    recordMask(runtime, [2, 1, 3, 4], out, 0);
    // codes 10 | 1 | 11 | 100 -> 0b10111100
    expect(out[0]).toBe(0b10111100);
  });

  it("storeMasks agrees with recordMask and with encodeStore's bit columns", () => {
    const masks = storeMasks(runtime, store);
    const bits = encodeStore(runtime.encoding, store);
    const one = new Uint32Array(1);
    for (let r = 0; r < store.size; r++) {
      recordMask(runtime, recordAt(store, r), one, 0);
      expect(masks[r]).toBe(one[0]);
      for (let b = 0; b < runtime.totalBits; b++)
        expect((masks[r]! >>> (runtime.totalBits - 1 - b)) & 1).toBe(bits.columns[b]![r]);
    }
  });

  it("packs records over more than 32 bits into several words", () => {
    const wide = createRecordStore(
      { attributes: Array.from({ length: 40 }, (_, i) => ({ name: `b${i}`, labels: ["0", "1"] })) },
      { rows: [Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 1 : 0))] },
    );
    const wideRuntime = encodingRuntime(wide.schema);
    expect(wideRuntime.stride).toBe(2);
    const masks = storeMasks(wideRuntime, wide);
    for (let b = 0; b < 40; b++) {
      const t = 39 - b;
      expect((masks[t >>> 5]! >>> (t & 31)) & 1).toBe(b % 3 === 0 ? 1 : 0);
    }
  });

  it("encodeTable is the inverse of decodeTable on true marginals", () => {
    const truth = contingencyTable(store, [0, 3]);
    const bits = encodeTable(runtime, truth);
    expect(bits.attributes).toEqual(encodedQuery(runtime, [0, 3]));
    const back = decodeTable(runtime.encoding, bits);
    expect(Array.from(back.table.cells)).toEqual(Array.from(truth.cells));
    expect(back.invalidMass).toBe(0);
  });

  it("decodeAnswer renormalises only when asked", () => {
    const truth = contingencyTable(store, [0]);
    const bits = encodeTable(runtime, truth);
    bits.cells[3] = 0.5; // code 3 encodes no value of a 3-valued attribute
    const raw = decodeAnswer(runtime, bits, false);
    const renormalised = decodeAnswer(runtime, bits, true);
    expect(raw.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
    expect(renormalised.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1.5, 12);
  });
});
