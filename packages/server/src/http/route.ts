import { OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type Router from '@koa/router';
import { type ApiKeyScope, ERROR_CODES, ErrorBody, ROUTE_SCOPES, z } from '@axle/sdk';
import type { Context, Middleware } from 'koa';
import { DomainError } from '../domain/errors.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** Security schemes declared in the OpenAPI document (see openapi.ts). */
export type Security = 'ApiKey' | 'BearerJWT' | 'X402Payment' | 'AdminToken';

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface ResponseDef {
  description: string;
  schema?: z.ZodType;
  /** Defaults to application/json. */
  contentType?: string;
  headers?: Record<string, string>;
}

export interface RouteDef<B, Q, P> {
  method: Method;
  /** OpenAPI style: /skill/{id}. */
  path: string;
  /** Unique, camelCase (getSkill, createApiKey): client and MCP tool generators name things by it. */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Alternatives: any one of them is enough. Empty or absent: public. */
  security?: Security[];
  body?: B;
  query?: Q;
  params?: P;
  /** Extra headers the route reads, for the document only. */
  headers?: z.ZodObject;
  responses: Record<number, ResponseDef>;
  /** Middleware that runs before validation (authentication, rate limits). */
  before?: Middleware[];
  handler: (input: { body: Infer<B>; query: Infer<Q>; params: Infer<P> }, ctx: Context) => unknown | Promise<unknown>;
}

/** A handler returns a body (sent with the route's first 2xx status) or a Reply to choose another. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}
export const reply = (status: number, body: unknown, headers?: Record<string, string>) =>
  new Reply(status, body, headers);

function describeIssue(where: string, issue: z.core.$ZodIssue): string {
  const field = [where, ...issue.path.map(String)].join('.');
  return `${field}: ${issue.message}`;
}

function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({
    field: [where, ...i.path.map(String)].join('.'),
    message: i.message,
  }));
  throw new DomainError(ERROR_CODES.VALIDATION, `Invalid request: ${describeIssue(where, result.error.issues[0]!)}`, {
    field: issues[0]!.field,
    issues,
  });
}

/**
 * Mounts routes on a Koa router and documents them in an OpenAPI registry from the same
 * zod schemas, so validation and /openapi.json cannot drift apart.
 */
export class Api {
  readonly registry = new OpenAPIRegistry();
  readonly mounted: Array<{ method: Method; path: string }> = [];

  private readonly schemes = new Set<Security>();

  /** `scopes`: the scope matrix routes are looked up in (ROUTE_SCOPES; tests mount routes of their own). */
  constructor(
    readonly router: Router,
    private readonly scopes: Readonly<Record<string, 'public' | readonly ApiKeyScope[]>> = ROUTE_SCOPES,
  ) {}

  route<
    B extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
    P extends z.ZodType | undefined = undefined,
  >(def: RouteDef<B, Q, P>): void {
    // A scheme is declared once some route uses it, so the document lists no unused component.
    for (const s of def.security ?? []) {
      if (!this.schemes.has(s)) this.registry.registerComponent('securitySchemes', s, SECURITY_SCHEMES[s]);
      this.schemes.add(s);
    }
    // Every route has its row in the scope matrix (ROUTE_SCOPES in @axle/sdk): a route missing there does not start.
    const entry = this.scopes[`${def.method.toUpperCase()} ${def.path}`];
    if (entry === undefined) throw new Error(`${def.method.toUpperCase()} ${def.path} is missing from ROUTE_SCOPES`);
    const routeScopes = entry === 'public' ? null : entry;
    const setScopes: Middleware = (ctx, next) => {
      ctx.state.routeScopes = routeScopes;
      return next();
    };
    this.registry.registerPath(toOpenApi(def, routeScopes));
    this.mounted.push({ method: def.method, path: def.path });
    const koaPath = def.path.replace(/\{(\w+)\}/g, ':$1');
    const okStatus = Number(Object.keys(def.responses).find((s) => s.startsWith('2')) ?? 200);
    const handler: Middleware = async (ctx) => {
      const input = {
        body: (def.body ? parse(def.body, ctx.request.body ?? {}, 'body') : undefined) as Infer<B>,
        query: (def.query ? parse(def.query, ctx.query, 'query') : undefined) as Infer<Q>,
        params: (def.params ? parse(def.params, ctx.params, 'path') : undefined) as Infer<P>,
      };
      const result = await def.handler(input, ctx);
      if (result instanceof Reply) {
        ctx.status = result.status;
        ctx.set(result.headers);
        ctx.body = result.body;
      } else if (result !== undefined) {
        ctx.status = okStatus;
        ctx.body = result;
      }
    };
    this.router.register(koaPath, [def.method], [setScopes, ...(def.before ?? []), handler]);
  }
}

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'API key with prefix axl_ (also accepted as Authorization: Bearer axl_…)',
  },
  BearerJWT: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Session token from GET /auth/verify, valid 24 hours',
  },
  X402Payment: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Payment',
    description: 'x402 signed USDC transfer authorization (exact scheme, eip155:8453)',
  },
  AdminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'AXLE_ADMIN_TOKEN (all admin routes) or AXLE_ADMIN_READ_TOKEN (GET admin routes)',
  },
} as const;

/** The route's document; a route keys may call states its scopes (ROUTE_SCOPES) and their 403. */
function toOpenApi<B, Q, P>(def: RouteDef<B, Q, P>, scopes: readonly ApiKeyScope[] | null): RouteConfig {
  const responses: RouteConfig['responses'] = {};
  const keyed = scopes !== null && scopes.length > 0;
  const declared: Record<number, ResponseDef> = { ...def.responses };
  if (keyed)
    declared[403] = {
      description: [def.responses[403]?.description, `insufficient_scope: an API key without ${scopes.join(' or ')}`]
        .filter(Boolean)
        .join('; '),
    };
  // A route that validates input answers 400 validation_error in the base error shape: documented when the route
  // declares no 400, and beside a route-specific 400 body when it declares one. Every method that carries a body has it
  // read (http/body.ts), so a route that takes none still answers 400 malformed_json, nested_json or duplicate_json_key
  // to a body sent anyway.
  const validates = Boolean(def.body || def.query || def.params);
  const readsBody = def.method !== 'get';
  if ((validates || readsBody) && !declared[400])
    declared[400] = {
      description: validates
        ? 'Invalid input: validation_error with field and issues (docs/http-api.md)'
        : 'A body was sent and is not JSON it can read: malformed_json, nested_json or duplicate_json_key',
    };
  // Every 429 is rate_limited from the one limiter, which always sends Retry-After.
  if (declared[429] && !declared[429].headers)
    declared[429] = {
      ...declared[429],
      headers: { 'Retry-After': 'seconds until the limit lets the request through' },
    };
  for (const [status, r] of Object.entries(declared)) {
    let schema = r.schema ?? (Number(status) >= 400 ? ErrorBody : undefined);
    if (status === '400' && validates && r.schema && r.schema !== ErrorBody) schema = z.union([r.schema, ErrorBody]);
    responses[status] = {
      description: r.description,
      ...(r.headers && {
        headers: Object.fromEntries(
          Object.entries(r.headers).map(([k, d]) => [k, { description: d, schema: { type: 'string' } }]),
        ),
      }),
      ...(schema && { content: { [r.contentType ?? 'application/json']: { schema } } }),
    };
  }
  return {
    method: def.method,
    path: def.path,
    operationId: def.operationId,
    summary: def.summary,
    description: keyed
      ? `${def.description ?? def.summary}\n\nAPI key scopes: ${scopes.join(' or ')}.`
      : def.description,
    tags: def.tags,
    // An empty list says "public" explicitly; omitting it would leave the operation's security undeclared.
    security: (def.security ?? []).map((s) => ({ [s]: [] })),
    request: {
      ...(def.body && {
        body: { required: true, content: { 'application/json': { schema: def.body as unknown as z.ZodType } } },
      }),
      ...(def.query && { query: def.query as unknown as z.ZodObject }),
      ...(def.params && { params: def.params as unknown as z.ZodObject }),
      ...(def.headers && { headers: def.headers }),
    },
    responses,
  };
}
