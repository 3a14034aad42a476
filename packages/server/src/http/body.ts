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
 * Depth of the deepest array/object in a JSON text, found by one linear scan (strings skipped),
 * so a hostile, deeply nested body is refused before the parser ever recurses into it.
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
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
 * Reads request bodies: JSON (size and nesting limits), urlencoded forms (the HTML pages),
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
    }
    return next();
  };
}
