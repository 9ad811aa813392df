import { planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { RequestRejectedError } from "./errors.js";
import { queryAttributes } from "./query-attributes.js";

describe("queryAttributes", () => {
  const schema = createSchema([
    { name: "age", cardinality: 4 },
    { name: "sex", cardinality: 2 },
    { name: "3", cardinality: 3 },
    { name: "zip", cardinality: 8 },
  ]);
  const plan = planCalm({ schema, n: 100_000, eps: 1, k: 2 });

  it("takes names, or indices when no attribute has that name, and sorts them", () => {
    expect(queryAttributes(plan, "zip,age", 1 << 20)).toEqual([0, 3]);
    expect(queryAttributes(plan, "1, 0", 1 << 20)).toEqual([0, 1]);
    // "3" is a name here (attribute 2), not index 3.
    expect(queryAttributes(plan, "3", 1 << 20)).toEqual([2]);
  });

  it("refuses unknown, repeated and too large queries with a reason", () => {
    const reasonOf = (attrs: string, max = 1 << 20) => {
      try {
        queryAttributes(plan, attrs, max);
        return "accepted";
      } catch (error) {
        expect(error).toBeInstanceOf(RequestRejectedError);
        return (error as RequestRejectedError).reason;
      }
    };
    expect(reasonOf("age,height")).toBe("invalid-query");
    expect(reasonOf("4")).toBe("invalid-query");
    expect(reasonOf("age,0")).toBe("invalid-query");
    expect(reasonOf("")).toBe("invalid-query");
    expect(reasonOf("age,zip", 31)).toBe("query-too-large");
    expect(reasonOf("age,zip", 32)).toBe("accepted");
  });
});
