import type { Dispatcher } from 'undici';
import type { z } from './zod.js';

/** A non-2xx answer from the server, with its JSON error body and headers (402s carry PAYMENT-REQUIRED). */
export class AxleApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; code?: string; [k: string]: unknown },
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${body.error ?? 'request failed'}`);
  }
}

/** No HTTP answer at all (refused, reset, DNS, timeout): `url` is the address that was tried. */
export class AxleUnreachableError extends Error {
  readonly code = 'server_unreachable';
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Axle server unreachable at ${url} (${reason})`);
  }
}

/** `text` as the address of a server (an http or https URL with a host), or undefined when it is none. */
export function serverUrl(text: string): URL | undefined {
  const url = URL.canParse(text) ? new URL(text) : undefined;
  return url && (url.protocol === 'http:' || url.protocol === 'https:') && url.host !== '' ? url : undefined;
}

/** A 2xx answer: the parsed body and the response headers (lower-case names). */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
  headers: Record<string, string>;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Session token (JWT) for account routes. */
  token?: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions<S extends z.ZodType | undefined> {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** When given, the 2xx body is parsed with it, so a drifting server fails loudly. */
  schema?: S;
  /** Send no API key or session token (e.g. when the request pays with x402 instead). */
  anonymous?: boolean;
}

/** Typed HTTP client over undici; the server's schemas type its answers. */
export class AxleClient {
  constructor(readonly options: ClientOptions) {}

  async request<S extends z.ZodType | undefined = undefined>(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    opts: RequestOptions<S> = {},
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    return (await this.send(method, path, opts)).body;
  }

  /** Like request(), also returning the status and headers of the 2xx answer. */
  async send<S extends z.ZodType | undefined = undefined>(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    opts: RequestOptions<S> = {},
  ): Promise<ApiAnswer<S extends z.ZodType ? z.output<S> : unknown>> {
    const url = new URL(path.replace(/^\//, ''), `${this.options.baseUrl.replace(/\/*$/, '')}/`);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...this.options.headers, ...opts.headers };
    if (this.options.apiKey && !opts.anonymous) headers['x-api-key'] = this.options.apiKey;
    if (this.options.token && !opts.anonymous) headers.authorization = `Bearer ${this.options.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = this.options.timeoutMs ?? 30_000;
    // Loaded at the first request, outside the try (a failure to load is not an unreachable server): importing
    // the SDK for its schemas and constants, as the server does, needs no HTTP client.
    const { request } = await import('undici');
    let res: Dispatcher.ResponseData;
    let text: string;
    try {
      res = await request(url, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        dispatcher: this.options.dispatcher,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      });
      text = await res.body.text();
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string }; message?: string };
      throw new AxleUnreachableError(url.href, e.code ?? e.cause?.code ?? e.message ?? 'no answer');
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = { error: text.slice(0, 200) };
    }
    const answerHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (v !== undefined) answerHeaders[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    }
    if (res.statusCode >= 400) {
      throw new AxleApiError(res.statusCode, (json ?? {}) as AxleApiError['body'], answerHeaders);
    }
    const body = (opts.schema ? opts.schema.parse(json) : json) as S extends z.ZodType ? z.output<S> : unknown;
    return { status: res.statusCode, body, headers: answerHeaders };
  }
}
