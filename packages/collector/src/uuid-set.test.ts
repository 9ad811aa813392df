import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { StorageError } from "./errors.js";
import { UuidSet, uuidWords } from "./uuid-set.js";

const words = (id: string) => {
  const out = new Uint32Array(4);
  uuidWords(id, out, 0);
  return out;
};

describe("uuidWords", () => {
  it("reads the 128 bits most significant word first", () => {
    expect([...words("0123abcd-4567-89ef-fedc-ba9876543210")]).toEqual([
      0x0123abcd, 0x456789ef, 0xfedcba98, 0x76543210,
    ]);
    expect([...words("ffffffff-ffff-ffff-ffff-ffffffffffff")]).toEqual([
      2 ** 32 - 1,
      2 ** 32 - 1,
      2 ** 32 - 1,
      2 ** 32 - 1,
    ]);
  });

  it("refuses anything but a lowercase canonical UUID", () => {
    for (const id of [
      "0123ABCD-4567-89ef-fedc-ba9876543210",
      "0123abcd-4567-89ef-fedc-ba987654321",
      "0123abcd_4567-89ef-fedc-ba9876543210",
      "0123abcd-4567-89ef-fedc-ba987654321g",
      "0123abcd-4567-89eg-fedc-ba9876543210",
      "",
    ])
      expect(() => words(id), id).toThrow(StorageError);
  });
});

describe("UuidSet", () => {
  it("agrees with a Set of strings through adds, lookups and deletes (seeded)", () => {
    const rng = seededRng(14, 1);
    // Few distinct ids (a small pool) so that adds repeat and deletes hit, over many growths.
    const pool = Array.from({ length: 5000 }, (_, i) => {
      const w = [rng.nextUint32(), rng.nextUint32(), rng.nextUint32(), rng.nextUint32()];
      if (i === 0) w.fill(0); // the all-zero id marks empty slots inside: held apart
      if (i === 1) w[0] = w[1] = w[2] = 0; // differs from zero in the last word only
      return Uint32Array.from(w);
    });
    const set = new UuidSet();
    const reference = new Set<number>();
    for (let step = 0; step < 60_000; step++) {
      const i = rng.nextUint32() % pool.length;
      const op = rng.nextUint32() % 3;
      if (op === 0) expect(set.add(pool[i]!, 0)).toBe(!reference.has(i));
      if (op === 0) reference.add(i);
      if (op === 1) expect(set.delete(pool[i]!, 0)).toBe(reference.has(i));
      if (op === 1) reference.delete(i);
      if (op === 2) expect(set.has(pool[i]!, 0)).toBe(reference.has(i));
    }
    expect(set.size).toBe(reference.size);
    for (let i = 0; i < pool.length; i++) expect(set.has(pool[i]!, 0)).toBe(reference.has(i));
    // At most half full: the table has at least two slots (32 bytes) per id.
    expect(set.bytes).toBeGreaterThanOrEqual(32 * set.size);
  });

  it("reads keys at an offset", () => {
    const set = new UuidSet();
    const buffer = Uint32Array.from([9, 9, 1, 2, 3, 4]);
    expect(set.add(buffer, 2)).toBe(true);
    expect(set.has(Uint32Array.from([1, 2, 3, 4]), 0)).toBe(true);
    expect(set.has(buffer, 1)).toBe(false);
  });
});
