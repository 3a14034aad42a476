import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';

/** Socket and stream errors that mean the client went away, not that the server failed. */
const GONE_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP_REQUEST_TIMEOUT',
]);

export function isClientGone(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return (e?.code !== undefined && (GONE_CODES.has(e.code) || e.code.startsWith('HPE_'))) || e?.message === 'aborted';
}

/** What the body reader throws when the client closed the connection mid-request: logged as 499, not answered. */
export const clientClosedRequest = () =>
  new DomainError(ERROR_CODES.CLIENT_CLOSED_REQUEST, 'Client closed the request');

/**
 * Koa's 'error' listener: errors writing a response to a client that went away are expected and
 * already in the access log (status 499), so they are logged at debug with no stack.
 */
export function responseErrorLogger(logger: Logger) {
  return (err: unknown) => {
    if (isClientGone(err)) logger.debug({ code: (err as { code?: string }).code }, 'client went away');
    else logger.error({ err }, 'response failed');
  };
}
