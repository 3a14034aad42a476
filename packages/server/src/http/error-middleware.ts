import { ERROR_CODES } from '@axle/sdk';
import type { Context, Next } from 'koa';
import { DomainError } from '../domain/errors.js';
import { renderDomainError } from './error-status.js';

const STATUS_CODES: Record<number, { error: string; code: string }> = {
  404: { error: 'Not found', code: ERROR_CODES.NOT_FOUND },
  405: { error: 'Method not allowed', code: ERROR_CODES.METHOD_NOT_ALLOWED },
  501: { error: 'Method not implemented', code: ERROR_CODES.METHOD_NOT_ALLOWED },
};

/** Errors thrown by Koa itself or @koa/router (http-errors) carry a status and `expose`. */
interface KoaLikeError {
  status?: number;
  statusCode?: number;
  expose?: boolean;
  message?: string;
  headers?: Record<string, string>;
}

/**
 * Renders every error as JSON `{error, code?, request_id, ...}`. Anything that is not a DomainError or an
 * exposed client error becomes a generic 500: no message, stack or SQL reaches the client.
 */
export function errorMiddleware() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null)
        throw new DomainError(ERROR_CODES.NOT_FOUND, 'Not found', { path: ctx.path });
      // The router answers a method a path does not take with its status and the Allow header only.
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body == null)
        throw Object.assign(new Error(), { status: ctx.status, expose: true });
    } catch (err) {
      let status: number;
      let body: Record<string, unknown>;
      let headers: Record<string, string> = {};
      if (err instanceof DomainError) {
        ({ status, body, headers } = renderDomainError(err));
        // A failure of the machine or a dependency (the disk full under the database): the client gets the
        // code, the operator the cause.
        if (err.cause !== undefined) ctx.state.log?.error({ err: err.cause, code: err.code }, 'dependency failed');
      } else {
        const e = (err ?? {}) as KoaLikeError;
        const s = e.status ?? e.statusCode;
        if (typeof s === 'number' && s >= 400 && s < 500 && e.expose !== false) {
          status = s;
          body = STATUS_CODES[s] ?? { error: e.message ?? 'Bad request' };
          if (e.headers) headers = e.headers;
        } else if (s === 501) {
          status = 501;
          body = STATUS_CODES[501]!;
        } else {
          status = 500;
          body = { error: 'Internal server error', code: ERROR_CODES.INTERNAL };
          ctx.state.log?.error({ err }, 'unhandled error');
        }
      }
      if (status === 405 && ctx.response.get('Allow'))
        body = { ...body, allowed: ctx.response.get('Allow').split(/,\s*/) };
      ctx.status = status;
      ctx.set(headers);
      ctx.body = { ...body, request_id: ctx.state.requestId };
    }
  };
}
