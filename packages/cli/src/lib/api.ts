import { EXIT } from './exit.js';

/** A failed call, carrying the exit code the command should end with and the server's JSON body. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly exit: number,
    readonly status?: number,
    readonly body?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Most characters of a server's text the CLI shows on one line. */
const MAX_SHOWN = 500;

/**
 * Text a server sent, as one line a terminal shows as it is: control characters (ESC, so no escape sequences),
 * bidirectional formatting and invisible characters removed, whitespace runs made one space, at most MAX_SHOWN
 * characters. The SDK is loaded only when there is such text (it is most of a command's start-up otherwise).
 */
export async function terminalLine(text: string): Promise<string> {
  const { normalizeDisplayText } = await import('@axle/sdk');
  return [...normalizeDisplayText(text, { singleLine: true }).trim()].slice(0, MAX_SHOWN).join('');
}

/**
 * Most bytes of an answer the CLI reads. Axle's answers are far smaller (a request body is at most 1 MiB, a page of
 * held learnings a few of those); a server streaming without end would otherwise fill the memory until the timeout.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/** The body as text, or an ApiError once it passes MAX_ANSWER_BYTES or stops arriving. */
async function answerText(res: Response, server: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body ?? []) {
      size += chunk.byteLength;
      if (size > MAX_ANSWER_BYTES) {
        await res.body?.cancel().catch(() => undefined);
        throw new ApiError(`${server} sent an answer larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB`, EXIT.FAILED);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(`cannot read the answer of ${server} (${(err as Error).message})`, EXIT.UNREACHABLE);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface ApiOptions {
  server: string;
  apiKey?: string;
  timeoutMs?: number;
}

/** JSON over HTTP to the Axle server, with the key from device login. */
export class Api {
  constructor(private readonly opts: ApiOptions) {}

  get server(): string {
    return this.opts.server;
  }

  /** The parsed body of a 2xx answer; anything else is an ApiError. */
  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, body);
    if (res.status >= 200 && res.status < 300) return res.body as T;
    const b = res.body ?? {};
    const said = [b.error, b.code].filter((x) => typeof x === 'string' && x).join(': ');
    // The server's words reach a terminal: no escape sequences, bidirectional overrides or line breaks of its making.
    const detail = said === '' ? `HTTP ${res.status}` : await terminalLine(said);
    const exit = res.status === 401 || res.status === 403 ? EXIT.AUTH : EXIT.FAILED;
    throw new ApiError(`${method} ${path} failed (${res.status}): ${detail}`, exit, res.status, b);
  }

  /** Status and parsed body, whatever the status; only an unreachable server throws. */
  async raw(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> | undefined }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    let res: Response;
    try {
      res = await fetch(`${this.opts.server}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 20_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new ApiError(`cannot reach ${this.opts.server} (${cause})`, EXIT.UNREACHABLE);
    }
    const text = await answerText(res, this.opts.server);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const record =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
    return { status: res.status, body: record };
  }
}

/** The server refuses the key itself (401, 403); any other failure (429, 5xx) says nothing about the key. */
export const keyRefused = (status: number): boolean => status === 401 || status === 403;

/** What to say when the server answered a key check with neither success nor refusal. */
export const keyNotChecked = (status: number): string =>
  `The server could not check the saved key (HTTP ${status}); it was not refused: try again`;
