import * as calmCore from "@calm-ldp/calm-core";
import * as frequencyOracles from "@calm-ldp/frequency-oracles";
import * as hadamard from "@calm-ldp/hadamard";
import * as marginalAlgebra from "@calm-ldp/marginal-algebra";
import * as random from "@calm-ldp/random";
import * as reconstruction from "@calm-ldp/reconstruction";
import { describe, expect, it } from "vitest";
import {
  CalmLdpError,
  CannotRunError,
  InvalidParameterError,
  MalformedReportError,
  MethodTooLargeError,
} from "./index.js";
import { thrown } from "./test-support.js";

const schema = (d: number) =>
  marginalAlgebra.createSchema(Array.from({ length: d }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));

describe("one error family across packages (@calm-ldp/errors)", () => {
  it("every package exports the same InvalidParameterError class", () => {
    const exported = [
      random.InvalidParameterError,
      hadamard.InvalidParameterError,
      frequencyOracles.InvalidParameterError,
      calmCore.InvalidParameterError,
      marginalAlgebra.InvalidInputError,
      reconstruction.InvalidQueryError,
    ];
    for (const cls of exported) expect(cls).toBe(InvalidParameterError);
    expect(calmCore.MalformedReportError).toBe(MalformedReportError);
    expect(frequencyOracles.MalformedReportError).toBe(MalformedReportError);
    expect(calmCore.CannotRunError).toBe(CannotRunError);
  });

  it("what other packages throw is caught by this package's classes", () => {
    const errors = [
      thrown(() => random.uniformInt(random.seededRng(1), 0)),
      thrown(() => hadamard.fwht(new Float64Array(3))),
      thrown(() => calmCore.planCalm({ schema: schema(3), n: 1000, eps: -1, k: 2 })),
      thrown(() => marginalAlgebra.createSchema([{ name: "a", cardinality: 1 }])),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(InvalidParameterError);
      expect(error).toBeInstanceOf(CalmLdpError);
    }
    const tooFew = thrown(() => calmCore.planCalm({ schema: schema(4), n: 2, eps: 1, k: 2 }));
    expect(tooFew).toBeInstanceOf(CannotRunError);
    expect(tooFew).toBeInstanceOf(CalmLdpError);
    expect(new MethodTooLargeError("x", 2, 1, "cells")).toBeInstanceOf(CannotRunError);
  });

  it("a report calm-core refuses is a MalformedReportError with its problem", () => {
    const plan = calmCore.planCalm({ schema: schema(3), n: 10_000, eps: 1, k: 2 });
    const aggregator = calmCore.createCalmAggregator(plan);
    const error = thrown(() => aggregator.add({ view: 99 } as never));
    expect(error).toBeInstanceOf(MalformedReportError);
    expect((error as MalformedReportError).problem).toBe("view");
  });
});
