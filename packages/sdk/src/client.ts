import { request, type Dispatcher } from 'undici';
import type { z } from './zod.js';

/** A non-2xx answer from the server, with its JSON error body. */
export class AxleApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: string; code?: string; [k: string]: unknown },
  ) {
    super(`${status} ${body.error ?? 'request failed'}`);
  }
}

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  /** Session token (JWT) for account routes. */
  token?: string;
  dispatcher?: Dispatcher;
  timeoutMs?: number;
}

export interface RequestOptions<S extends z.ZodType | undefined> {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** When given, the 2xx body is parsed with it, so a drifting server fails loudly. */
  schema?: S;
}

/** Typed HTTP client over undici; the server's schemas type its answers. */
export class AxleClient {
  constructor(readonly options: ClientOptions) {}

  async request<S extends z.ZodType | undefined = undefined>(
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    path: string,
    opts: RequestOptions<S> = {},
  ): Promise<S extends z.ZodType ? z.output<S> : unknown> {
    const url = new URL(path.replace(/^\//, ''), `${this.options.baseUrl.replace(/\/*$/, '')}/`);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = this.options.timeoutMs ?? 30_000;
    const res = await request(url, {
      method,
      headers,
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      dispatcher: this.options.dispatcher,
      headersTimeout: timeout,
      bodyTimeout: timeout,
    });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = { error: text.slice(0, 200) };
    }
    if (res.statusCode >= 400) throw new AxleApiError(res.statusCode, (json ?? {}) as AxleApiError['body']);
    return (opts.schema ? opts.schema.parse(json) : json) as S extends z.ZodType ? z.output<S> : unknown;
  }
}
