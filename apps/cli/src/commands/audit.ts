import {
  createOracle,
  empiricalAudit,
  exactWorstLogRatio,
  type FrequencyOracle,
  InvalidParameterError,
  ORACLE_NAMES,
} from "@calm-ldp/frequency-oracles";
import { seededRng } from "@calm-ldp/random";
import { type Command, type OptionSpec, UsageError } from "../cli-kit.js";

interface AuditOptions {
  oracle: string;
  eps: number;
  domain: number;
  samples: number;
  pair: number[];
  confidence: number;
  seed?: number;
}

/** `--oracle <name>`, one of the frequency oracles' names (audit and fo-bench). */
export const ORACLE_OPTION: OptionSpec = {
  type: "string",
  description: "oracle name",
  required: true,
  choices: ORACLE_NAMES,
};

/** Create the oracle, turning parameter errors (e.g. rr with D != 2) into usage errors. */
export function oracleForCommand(
  command: string,
  name: string,
  eps: number,
  domain: number,
): FrequencyOracle {
  try {
    return createOracle(name, { eps, domain });
  } catch (error) {
    if (error instanceof InvalidParameterError) throw new UsageError(`${command}: ${error.message}`);
    throw error;
  }
}

export const auditCommand: Command = {
  name: "audit",
  summary:
    "Privacy audit of a frequency oracle: the exact worst log-ratio of its output law, and a 99% Clopper-Pearson lower bound on the eps its real sampler achieves.",
  options: {
    oracle: ORACLE_OPTION,
    eps: { type: "number", description: "privacy budget", required: true, min: 1e-6, max: 20 },
    domain: { type: "integer", description: "domain size D (values 0..D-1)", required: true, min: 2 },
    samples: {
      type: "integer",
      description: "reports per input for the bound (a quarter more are drawn to choose the event)",
      default: 1_000_000,
      min: 100,
    },
    pair: { type: "numbers", description: "the two inputs compared, a,b", default: [0, 1] },
    confidence: {
      type: "number",
      description: "confidence of the lower bound",
      default: 0.99,
      min: 0.5,
      max: 0.999999,
    },
    seed: {
      type: "integer",
      description: "seed a reproducible generator instead of the default cryptographic source",
      min: 0,
    },
  },
  run(raw, context) {
    const options = raw as unknown as AuditOptions;
    const oracle = oracleForCommand("audit", options.oracle, options.eps, options.domain);
    const [a, b] = options.pair;
    if (
      options.pair.length !== 2 ||
      !Number.isInteger(a) ||
      !Number.isInteger(b) ||
      a === b ||
      a! < 0 ||
      b! < 0 ||
      a! >= options.domain ||
      b! >= options.domain
    ) {
      throw new UsageError(
        `audit: --pair must be two different integers in [0, ${options.domain}) (got ${options.pair.join(",")})`,
      );
    }
    let exact: number | null = null;
    try {
      exact = exactWorstLogRatio(oracle);
    } catch (error) {
      if (!(error instanceof InvalidParameterError)) throw error;
      context.log(`audit: exact check skipped: ${error.message}`);
    }
    const started = process.hrtime.bigint();
    const audit = empiricalAudit(oracle, {
      samples: options.samples,
      pair: [a!, b!],
      confidence: options.confidence,
      ...(options.seed === undefined ? {} : { rng: seededRng(options.seed) }),
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    context.log(
      `audit: ${oracle.id} (${oracle.mechanism}) eps=${oracle.eps} D=${oracle.domain}: event "${audit.event.classes.join(" or ")}" favouring ${audit.event.favours}, hits ${audit.hits[0]} vs ${audit.hits[1]}, point estimate ${audit.epsEstimate.toFixed(4)}, ${seconds.toFixed(2)} s, ${options.seed === undefined ? "cryptoRng" : `seededRng(${options.seed})`}`,
    );
    return {
      oracle: options.oracle,
      eps: options.eps,
      domain: options.domain,
      samples: options.samples,
      exactWorstLogRatio: exact,
      empiricalEpsLower: audit.epsLower,
    };
  },
};
