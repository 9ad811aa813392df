import { describe, expect, it } from "vitest";
import { adaptiveMechanism, createAdaptive } from "./adaptive.js";
import { createBlh } from "./blh.js";
import { InvalidParameterError } from "./errors.js";
import { createGrr } from "./grr.js";
import { createHr } from "./hr.js";
import { createOlh } from "./olh.js";
import { createOue } from "./oue.js";
import { createRr } from "./rr.js";
import { createSs, defaultSubsetSize } from "./ss.js";
import { createSue } from "./sue.js";

const relative = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

describe("p, q and the f-free variance match ../../../docs/algorithms.md#frequency-oracles", () => {
  const n = 10_000;
  for (const eps of [0.2, 1, 2.5]) {
    const e = Math.exp(eps);
    for (const domain of [2, 8, 100]) {
      it(`eps = ${eps}, D = ${domain}`, () => {
        const grr = createGrr({ eps, domain });
        expect(relative(grr.p, e / (e + domain - 1))).toBeLessThan(1e-14);
        expect(relative(grr.q, 1 / (e + domain - 1))).toBeLessThan(1e-14);
        expect(relative(grr.variance(n), (domain - 2 + e) / (e - 1) ** 2 / n)).toBeLessThan(1e-12);

        const oue = createOue({ eps, domain });
        expect(oue.p).toBe(0.5);
        expect(relative(oue.q, 1 / (e + 1))).toBeLessThan(1e-14);
        expect(relative(oue.variance(n), (4 * e) / (e - 1) ** 2 / n)).toBeLessThan(1e-12);

        const sue = createSue({ eps, domain });
        const h = Math.exp(eps / 2);
        expect(relative(sue.p, h / (h + 1))).toBeLessThan(1e-14);
        expect(relative(sue.q, 1 - sue.p)).toBeLessThan(1e-12);
        expect(relative(sue.variance(n), h / (h - 1) ** 2 / n)).toBeLessThan(1e-12);

        const olh = createOlh({ eps, domain });
        const g = Math.round(e) + 1;
        expect(olh.parameters.g).toBe(g);
        expect(relative(olh.p, e / (e + g - 1))).toBeLessThan(1e-14);
        expect(olh.q).toBe(1 / g);
        // ~4 e^eps / (e^eps - 1)^2: exact when g = e^eps + 1; rounding g costs little.
        expect(relative(olh.variance(n), (4 * e) / (e - 1) ** 2 / n)).toBeLessThan(0.2);

        const blh = createBlh({ eps, domain });
        expect(relative(blh.variance(n), (e + 1) ** 2 / (e - 1) ** 2 / n)).toBeLessThan(1e-12);

        const hr = createHr({ eps, domain });
        expect(hr.q).toBe(0.5);
        expect(hr.parameters.outputs).toBe(2 ** Math.ceil(Math.log2(domain + 1)));
        expect(relative(hr.variance(n), (e + 1) ** 2 / (e - 1) ** 2 / n)).toBeLessThan(1e-12);

        const ss = createSs({ eps, domain });
        const k = ss.parameters.k!;
        expect(relative(ss.p, (k * e) / (k * e + domain - k))).toBeLessThan(1e-14);
        expect(relative(ss.q, (k - ss.p) / (domain - 1))).toBeLessThan(1e-14);

        const adaptive = createAdaptive({ eps, domain });
        expect(relative(adaptive.variance(n), Math.min(grr.variance(n), oue.variance(n)))).toBeLessThan(
          1e-12,
        );
      });
    }
  }

  it("RR is GRR with D = 2", () => {
    const rr = createRr({ eps: 1.3 });
    const grr = createGrr({ eps: 1.3, domain: 2 });
    expect(rr.p).toBe(grr.p);
    expect(rr.q).toBe(grr.q);
    expect(rr.domain).toBe(2);
    expect(rr.fingerprint).not.toBe(grr.fingerprint);
    expect(() => createRr({ eps: 1, domain: 3 })).toThrow(/createRr: domain must be 2/);
  });
});

describe("adaptive oracle", () => {
  it("chooses GRR exactly when D - 2 < 3 e^eps (CALM)", () => {
    // e^1 = 2.718: 3 e = 8.15, so D = 10 (8 < 8.15) is GRR and D = 11 (9) is OUE.
    expect(adaptiveMechanism(1, 10)).toBe("grr");
    expect(adaptiveMechanism(1, 11)).toBe("oue");
    expect(createAdaptive({ eps: 1, domain: 10 }).mechanism).toBe("grr");
    expect(createAdaptive({ eps: 1, domain: 11 }).mechanism).toBe("oue");
    expect(createAdaptive({ eps: 1, domain: 11 }).id).toBe("adaptive");
    for (const eps of [0.1, 0.5, 1, 2, 4]) {
      for (let domain = 2; domain < 300; domain += 7) {
        const choice = createAdaptive({ eps, domain });
        const grr = createGrr({ eps, domain }).variance(1);
        const oue = createOue({ eps, domain }).variance(1);
        expect(choice.variance(1)).toBeLessThanOrEqual(Math.max(grr, oue));
        expect(choice.mechanism).toBe(domain - 2 < 3 * Math.exp(eps) ? "grr" : "oue");
      }
    }
  });
});

describe("subset selection", () => {
  it("picks k near D / (e^eps + 1) with the smaller variance", () => {
    expect(defaultSubsetSize(1, 64)).toBeGreaterThanOrEqual(17);
    expect(defaultSubsetSize(1, 64)).toBeLessThanOrEqual(18);
    expect(defaultSubsetSize(5, 8)).toBe(1);
    for (const [eps, domain] of [
      [0.5, 20],
      [1, 64],
      [2, 100],
    ] as const) {
      const k = defaultSubsetSize(eps, domain);
      const best = createSs({ eps, domain, k }).variance(1);
      for (const other of [k - 1, k + 1]) {
        if (other >= 1 && other <= domain - 1)
          expect(best).toBeLessThanOrEqual(createSs({ eps, domain, k: other }).variance(1) * (1 + 1e-12));
      }
    }
  });

  it("with k = 1 is GRR", () => {
    const ss = createSs({ eps: 1.1, domain: 9, k: 1 });
    const grr = createGrr({ eps: 1.1, domain: 9 });
    expect(relative(ss.p, grr.p)).toBeLessThan(1e-14);
    expect(relative(ss.q, grr.q)).toBeLessThan(1e-14);
  });
});

describe("parameter errors", () => {
  it("names the function, the condition and the value", () => {
    expect(() => createGrr({ eps: -1, domain: 4 })).toThrow(
      new InvalidParameterError("createGrr: eps must be a finite number in (0, 20] (got -1)"),
    );
    expect(() => createGrr({ eps: Number.NaN, domain: 4 })).toThrow(
      /createGrr: eps must be a finite number in \(0, 20\] \(got NaN\)/,
    );
    expect(() => createOue({ eps: 1, domain: 1 })).toThrow(
      /createOue: domain must be an integer in \[2, 16777216\] \(got 1\)/,
    );
    expect(() => createOlh({ eps: 1, domain: 4, g: 1 })).toThrow(
      /createOlh: g must be an integer in \[2, 1048576\] \(got 1\)/,
    );
    expect(() => createSs({ eps: 1, domain: 4, k: 4 })).toThrow(
      /createSs: k must be an integer in \[1, 3\] \(got 4\)/,
    );
    expect(() => createHr({ eps: 1, domain: 2.5 })).toThrow(/createHr: domain must be an integer/);
    expect(() => createGrr(undefined as never)).toThrow(InvalidParameterError);
  });
});
