import { describe, expect, it } from "vitest";
import { type Command, commandHelp, parseOptions, UsageError } from "./cli-kit.js";

const command: Command = {
  name: "probe",
  summary: "a test command",
  options: {
    n: { type: "integer", description: "users", required: true, min: 1 },
    eps: { type: "numbers", description: "budgets", default: [1], min: 0 },
    oracle: { type: "string", description: "oracle", choices: ["grr", "oue"], default: "grr" },
    verbose: { type: "boolean", description: "chatty" },
  },
  run: (options) => options,
};

describe("parseOptions", () => {
  it("parses typed values, defaults, --json and --name=value", () => {
    const parsed = parseOptions(command, ["--n", "10", "--eps=0.5,1.5", "--verbose", "--json"]);
    expect(parsed.options).toEqual({ n: 10, eps: [0.5, 1.5], oracle: "grr", verbose: true });
    expect(parsed.json).toBe(true);
  });

  it("names the option in every usage error", () => {
    const error = (argv: string[]) => {
      try {
        parseOptions(command, argv);
      } catch (e) {
        expect(e).toBeInstanceOf(UsageError);
        return (e as Error).message;
      }
      throw new Error("expected a UsageError");
    };
    expect(error(["--n", "10", "--bogus", "1"])).toBe(
      "probe: unknown option --bogus (see calm-ldp probe --help)",
    );
    expect(error([])).toBe("probe: --n is required");
    expect(error(["--n", "1.5"])).toBe('probe: --n must be an integer (got "1.5")');
    expect(error(["--n", "0"])).toBe('probe: --n must be >= 1 (got "0")');
    expect(error(["--n", "5", "--oracle", "xyz"])).toBe(
      'probe: --oracle must be one of grr, oue (got "xyz")',
    );
    expect(error(["--n", "5", "--eps", "1,,2"])).toMatch(/--eps must be a finite number/);
    expect(error(["--n"])).toBe("probe: --n needs a value");
    expect(error(["--n", "5", "stray"])).toBe('probe: unexpected argument "stray"');
  });

  it("--help needs no required option and lists every option", () => {
    expect(parseOptions(command, ["--help"]).help).toBe(true);
    const help = commandHelp(command);
    for (const name of ["--n", "--eps", "--oracle", "--verbose", "--json", "--help"])
      expect(help).toContain(name);
  });
});
