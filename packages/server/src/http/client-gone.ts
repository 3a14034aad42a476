import type { Logger } from '../logger.js';
import { HttpError } from './errors.js';

/** Status logged for a request whose client closed the connection before it was answered (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Socket and stream errors that mean the client went away, not that the server failed. */
const GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_HTTP_REQUEST_TIMEOUT']);

export function isClientGone(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return (e?.code !== undefined && (GONE_CODES.has(e.code) || e.code.startsWith('HPE_'))) || e?.message === 'aborted';
}

/** What a request handler throws when the client closed the connection mid-request: logged as 499, not answered. */
export const clientClosedRequest = () => new HttpError(CLIENT_CLOSED_REQUEST, 'Client closed the request');

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
