import { ERROR_CODES, LIMITS } from '@axle/sdk';
import type { Context, Next } from 'koa';
import { DomainError } from '../domain/errors.js';
import { clientClosedRequest, isClientGone } from './client-gone.js';

declare module 'koa' {
  interface Request {
    /** Parsed JSON or form body; undefined when the request had none. */
    body?: unknown;
  }
}

/**
 * The index of the quote that closes the JSON string opening at `start` (text.length when none): found with
 * indexOf, since most of a body is string content, skipping quotes escaped by an odd run of backslashes.
 */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1) {
    let backslashes = 0;
    for (let j = end - 1; text.charCodeAt(j) === 92 /* \ */; j--) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
  return text.length;
}

/**
 * Depth of the deepest array/object in a JSON text, found by one linear scan (strings skipped),
 * so a hostile, deeply nested body is refused before the parser ever recurses into it.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) i = stringEnd(text, i);
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * The first key an object of a JSON text names twice (escapes decoded, so `"a"` and `"\\u0061"` are one key),
 * at any depth; undefined when none. One linear scan without recursion; the text must already parse.
 */
export function duplicateJsonKey(text: string): string | undefined {
  // One entry per open container: the keys seen so far (objects) or null (arrays).
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i;
      i = stringEnd(text, i);
      if (!expectKey) continue;
      const raw = text.slice(start + 1, i);
      const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
      const keys = open[open.length - 1]!;
      if (keys.has(key)) return key;
      keys.add(key);
      expectKey = false;
    } else if (c === 123 /* { */) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 91 /* [ */) open.push(null);
    else if (c === 125 /* } */ || c === 93 /* ] */) open.pop();
    else if (c === 44 /* , */) expectKey = open[open.length - 1] instanceof Set;
  }
  return undefined;
}

async function readLimited(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length'));
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw tooLarge(limit);
      chunks.push(chunk);
    }
  } catch (err) {
    if (isClientGone(err)) throw clientClosedRequest();
    throw err;
  }
  return Buffer.concat(chunks);
}

const tooLarge = (limit: number) =>
  new DomainError(ERROR_CODES.PAYLOAD_TOO_LARGE, `Request body exceeds ${limit} bytes`, { limit_bytes: limit });

/**
 * Reads request bodies: JSON (size and nesting limits, no duplicate keys), urlencoded forms (the HTML pages),
 * and keeps the raw bytes in ctx.state.rawBody for signature checks (webhooks).
 */
export function bodyParser(
  opts: { maxBytes?: number; maxDepth?: number; maxDepthByPath?: Record<string, number> } = {},
) {
  const maxBytes = opts.maxBytes ?? LIMITS.http.maxBodyBytes;
  return async (ctx: Context, next: Next) => {
    const maxDepth = opts.maxDepthByPath?.[ctx.path] ?? opts.maxDepth ?? LIMITS.http.maxJsonDepth;
    if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(ctx.method)) return next();
    const raw = await readLimited(ctx, maxBytes);
    ctx.state.rawBody = raw;
    if (raw.length === 0) return next();
    const type = ctx.request.type;
    const text = raw.toString('utf8');
    if (type === 'application/x-www-form-urlencoded') {
      ctx.request.body = Object.fromEntries(new URLSearchParams(text));
    } else if (type === '' || type === 'application/json' || type.endsWith('+json')) {
      if (jsonDepth(text) > maxDepth) {
        throw new DomainError(ERROR_CODES.NESTED_JSON, `JSON nested deeper than ${maxDepth} levels`, {
          max_depth: maxDepth,
        });
      }
      try {
        ctx.request.body = JSON.parse(text);
      } catch {
        throw new DomainError(ERROR_CODES.MALFORMED_JSON, 'Malformed JSON body');
      }
      // JSON.parse keeps the last of two equal keys; a body meaning two things is refused instead.
      const duplicate = duplicateJsonKey(text);
      if (duplicate !== undefined)
        throw new DomainError(ERROR_CODES.DUPLICATE_JSON_KEY, `JSON body names the key "${duplicate}" twice`, {
          key: duplicate,
        });
    }
    return next();
  };
}
