import type http from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Time from a connection's (or a request's) first byte to its last header line. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections at most. */
  maxConnections: number;
}

/**
 * Requests one connection may have waiting for their answers (HTTP/1.1 pipelining). Node answers pipelined
 * requests in order and keeps each answer in memory until those before it are sent, so a client that
 * pipelines many and never reads would make the server hold them all.
 */
export const MAX_PIPELINED = 4;

/** Longest pause between Node's timeout checks: a timed-out request is answered at most this late. */
const MAX_CHECK_INTERVAL_MS = 250;

/**
 * Server options that enforce the timeouts. Node checks them on an interval (30 s by default,
 * longer than a headers timeout of a few seconds), so the interval follows the shortest of them,
 * and is never longer than MAX_CHECK_INTERVAL_MS.
 */
export function timeoutOptions(limits: ConnectionLimits): http.ServerOptions {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs, limits.keepAliveTimeoutMs);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(shortest / 4))),
  };
}

/**
 * Holds the server to `max` open connections. At the cap a new connection takes the place of the
 * connection idle longest (between requests, or still sending its first request's headers), so
 * sockets held open for nothing cannot lock out a client such as a load balancer's /health probe;
 * only when every connection is serving a request is the new one closed.
 */
export function capConnections(server: http.Server, max: number): void {
  /** Open sockets, the longest idle first; `true` while a request is being served on one. */
  const open = new Map<Socket, boolean>();
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const idle = [...open].find(([, busy]) => !busy)?.[0];
      if (!idle) {
        socket.destroy();
        return;
      }
      open.delete(idle);
      idle.destroy();
    }
    open.set(socket, false);
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const socket = req.socket;
    if (!open.has(socket)) return;
    open.set(socket, true);
    res.once('close', () => {
      if (!open.has(socket)) return;
      // Idle again from now: to the back of the line.
      open.delete(socket);
      open.set(socket, false);
    });
  });
}

/**
 * `handler`, served only while a connection has at most MAX_PIPELINED requests waiting for their answers. A
 * request past that closes the connection (the client is pipelining without reading); it and the requests
 * after it are never handled.
 */
export function boundPipelining(handler: http.RequestListener): http.RequestListener {
  const waiting = new WeakMap<Socket, number>();
  return (req, res) => {
    const socket = req.socket;
    if (socket.destroyed) return;
    const n = (waiting.get(socket) ?? 0) + 1;
    if (n > MAX_PIPELINED) {
      socket.destroy();
      return;
    }
    waiting.set(socket, n);
    res.once('close', () => waiting.set(socket, (waiting.get(socket) ?? 1) - 1));
    handler(req, res);
  };
}
