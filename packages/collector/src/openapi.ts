import swagger from "@fastify/swagger";
import type { FastifyInstance, RouteOptions } from "fastify";

/** The JSON body of every error answer (`ErrorBody`), as the document describes it. */
const ERROR_BODY = {
  type: "object",
  required: ["statusCode", "reason", "message"],
  properties: {
    statusCode: { type: "integer" },
    reason: {
      type: "string",
      description:
        "Machine-readable reason (schema, malformed-json, body-too-large, batch-too-large, unknown-view, round-closed, rate-limited, storage-unavailable, ...; see the collector README's troubleshooting guide)",
    },
    message: { type: "string" },
  },
} as const;

/** A route's error answers in the document: 4xx with the error body, and 503 when the database is away. */
const ERROR_RESPONSES = {
  "4XX": { description: "Refused: see `reason`", content: { "application/json": { schema: ERROR_BODY } } },
  "503": {
    description: "storage-unavailable: the database is away; retry after Retry-After seconds",
    content: { "application/json": { schema: ERROR_BODY } },
  },
};

/** Routes answering 201 (they create a round or campaign); every other route answers 200. */
const CREATED = new Set(["POST /v1/rounds", "POST /v1/campaigns", "POST /v1/campaigns/:id/rounds"]);

/** The success answer of a route without a response schema of its own: a JSON object. */
function successResponse(method: string, url: string): Record<string, unknown> {
  const code = CREATED.has(`${method} ${url}`) ? "201" : "200";
  return { [code]: { description: "Success: a JSON object", type: "object", additionalProperties: true } };
}

/** `POST /v1/rounds/:id/close` -> `post-v1-rounds-id-close`: a stable operation id from method and route. */
export function operationId(method: string, url: string): string {
  const words = url
    .split("/")
    .filter((part) => part !== "")
    .map((part) => part.replace(/^:/, "").replace(/[^A-Za-z0-9]+/g, "-"));
  return [method.toLowerCase(), ...words].join("-");
}

/** Every route added to each app after `registerOpenApi` (see `registeredRoutes`). */
const registered = new WeakMap<FastifyInstance, { method: string; url: string }[]>();

/**
 * @internal Every route (method, URL) of a collector app, as Fastify registered
 * them: what the API description must cover (test support).
 */
export function registeredRoutes(app: FastifyInstance): readonly { method: string; url: string }[] {
  return registered.get(app) ?? [];
}

/** Whether a route runs the admin check (`admin` among its onRequest hooks). */
function isAdmin(route: RouteOptions, admin: unknown): boolean {
  const hooks = route.onRequest;
  return Array.isArray(hooks) ? hooks.includes(admin as never) : hooks === admin;
}

/** The path parameter of a wildcard route: the rest of the path (a console file such as `assets/x.js`). */
const WILDCARD_PARAMS = {
  type: "object",
  properties: { path: { type: "string", description: "The rest of the path (a file below the route)" } },
  required: ["path"],
} as const;

/**
 * Describe the collector's API as OpenAPI 3.1 (`@fastify/swagger`), from the
 * routes' own JSON schemas (params, query, body, responses; no second copy):
 * register it before any route. Each operation gets an id from its method and
 * route, the admin bearer token as its security when the route runs `admin`
 * (none otherwise), and the error answers every route shares. Served at
 * `GET /openapi.json`. Preflight (`OPTIONS`) routes are left out. Cost: the
 * document is built once, at the first request (the plugin caches it).
 */
export async function registerOpenApi(app: FastifyInstance, admin: unknown): Promise<void> {
  const routes: { method: string; url: string }[] = [];
  registered.set(app, routes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "calm-ldp collector",
        version: "1",
        summary: "Collects local differential privacy reports of CALM rounds and answers marginal queries",
        description:
          "Plans of rounds, report batches (validated strictly, acknowledged only after commit), round status and closing, estimated marginals, campaigns of rounds, health, readiness and Prometheus metrics.",
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: "/", description: "this collector" }],
      components: {
        securitySchemes: {
          adminToken: {
            type: "http",
            scheme: "bearer",
            description: "The collector's admin token (CALM_LDP_ADMIN_TOKEN)",
          },
        },
      },
    },
    hiddenTag: "hidden",
    transform: ({ schema, url, route }) => {
      const method = Array.isArray(route.method) ? route.method[0]! : route.method;
      const described = (schema ?? {}) as Record<string, unknown>;
      const hide = method === "OPTIONS" || method === "HEAD" || url === "*";
      // A wildcard route (the console's files, `/console/*`) as a named path parameter.
      const wildcard = url.endsWith("/*");
      return {
        url: wildcard ? `${url.slice(0, -1)}{path}` : url,
        schema: {
          ...described,
          ...(wildcard ? { params: WILDCARD_PARAMS } : {}),
          ...(hide ? { hide: true } : {}),
          operationId: operationId(method, url),
          summary: (described.summary as string | undefined) ?? `${method} ${url}`,
          security: isAdmin(route, admin) ? [{ adminToken: [] }] : [],
          response: {
            ...ERROR_RESPONSES,
            ...((described.response as object | undefined) ?? successResponse(method, url)),
          },
        },
      };
    },
  });
  app.get(
    "/openapi.json",
    {
      schema: {
        summary: "This API description (OpenAPI 3.1)",
        response: {
          200: { description: "The OpenAPI document", type: "object", additionalProperties: true },
        },
      },
    },
    async () => app.swagger(),
  );
}
