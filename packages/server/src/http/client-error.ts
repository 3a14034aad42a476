import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';
import { renderDomainError } from './error-status.js';

/** What the HTTP parser's (or the connection timeouts') refusal of a request means to the client. */
function domainErrorOf(err: NodeJS.ErrnoException): DomainError {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return new DomainError(ERROR_CODES.HEADERS_TOO_LARGE, 'Request headers are larger than the server reads', {
      max_header_bytes: http.maxHeaderSize,
    });
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new DomainError(ERROR_CODES.REQUEST_TIMEOUT, "The request did not arrive within the server's timeouts");
  return new DomainError(ERROR_CODES.MALFORMED_REQUEST, 'Malformed HTTP request');
}

/**
 * How long a refused connection may stay half-open after its answer: long enough for the client to read it, short
 * enough that a client which ignores the end of the stream (and keeps trickling bytes) is cut off soon after.
 */
export const REFUSED_LINGER_MS = 500;

/**
 * Answers a request the HTTP parser refused (oversized headers, bad bytes, a timeout) the way every other error
 * is answered: JSON with a code and a request_id, then closes the connection (destroying it after REFUSED_LINGER_MS
 * if the client keeps its side open). Node's own answer has no body.
 */
export function answerClientErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const { status, body } = renderDomainError(domainErrorOf(err));
    const json = JSON.stringify({ ...body, request_id: requestId });
    const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    linger.unref();
    socket.once('close', () => clearTimeout(linger));
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}
