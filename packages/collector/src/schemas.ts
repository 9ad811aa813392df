import { REPORT_ID_PATTERN } from "@calm-ldp/client";

/** A round id in a URL: a lower-case UUID. */
export const ROUND_PARAMS = {
  type: "object",
  required: ["id"],
  additionalProperties: false,
  properties: { id: { type: "string", pattern: REPORT_ID_PATTERN } },
} as const;

/** Standard base64 text (the `bits` of a unary report); the exact length is checked against the view. */
const BASE64 = "^[A-Za-z0-9+/]*={0,2}$";

/**
 * The body of `POST /v1/rounds/:id/reports`: `{round, reports: [{id, view, value | bits}]}`,
 * nothing else. The per-view checks (view range, value range, bits length) follow
 * in `validateBatch`; the batch size limit is checked before this schema (413).
 */
export function reportsBodySchema(maxBitsLength: number) {
  return {
    type: "object",
    required: ["round", "reports"],
    additionalProperties: false,
    properties: {
      round: { type: "string", maxLength: 36 },
      reports: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          required: ["id", "view"],
          additionalProperties: false,
          properties: {
            id: { type: "string", pattern: REPORT_ID_PATTERN },
            view: { type: "integer", minimum: 0, maximum: 2 ** 31 - 1 },
            value: { type: "integer", minimum: 0, maximum: 2 ** 32 - 1 },
            bits: { type: "string", maxLength: maxBitsLength, pattern: BASE64 },
            token: { type: "string", maxLength: 1024, pattern: BASE64 },
          },
        },
      },
    },
  } as const;
}

/** The body of `POST /v1/rounds`: a schema of 1..64 attributes, eps, k, n and optionally theta and oracle. */
export const ROUND_BODY = {
  type: "object",
  required: ["schema", "eps", "k", "n"],
  additionalProperties: false,
  properties: {
    schema: {
      type: "object",
      required: ["attributes"],
      additionalProperties: false,
      properties: {
        attributes: {
          type: "array",
          minItems: 1,
          maxItems: 64,
          items: {
            type: "object",
            required: ["name"],
            additionalProperties: false,
            properties: {
              name: { type: "string", minLength: 1, maxLength: 64 },
              labels: {
                type: "array",
                minItems: 2,
                maxItems: 256,
                items: { type: "string", maxLength: 64 },
              },
              cardinality: { type: "integer", minimum: 2, maximum: 256 },
            },
            oneOf: [{ required: ["labels"] }, { required: ["cardinality"] }],
          },
        },
      },
    },
    eps: { type: "number", exclusiveMinimum: 0, maximum: 20 },
    k: { type: "integer", minimum: 1, maximum: 64 },
    n: { type: "integer", minimum: 1, maximum: 1e10 },
    theta: { type: "number", exclusiveMinimum: 0, maximum: 1 },
    oracle: { type: "string", enum: ["adaptive", "grr", "oue", "sue"] },
  },
} as const;

/** The query of `GET /v1/rounds/:id/marginals`. */
export const MARGINALS_QUERY = {
  type: "object",
  required: ["attrs"],
  additionalProperties: false,
  properties: {
    attrs: { type: "string", minLength: 1, maxLength: 4096 },
    estimator: { type: "string", enum: ["calm", "calm-plus"] },
    interval: { type: "string", maxLength: 64 },
  },
} as const;

/** The route of report batches (the error handler counts refusals on it). */
export const REPORTS_ROUTE = "/v1/rounds/:id/reports";

/** The plan endpoint's route (clients fetch the round's plan here). */
export const PLAN_ROUTE = "/v1/rounds/:id/plan";
