import type { Readable } from 'node:stream';
import { invalidParams, misshapenParams } from '@axle/sdk/mcp';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** The longest line taken: the server takes bodies of 1 MiB, and a request's frame around one is small. */
export const MAX_LINE_BYTES = 4 << 20;

/**
 * Splits a stream into newline-delimited lines. A line longer than `maxBytes` is dropped as it arrives (reported
 * once by `oversize`), so one oversized message costs no more than `maxBytes` of memory and the next line is read.
 */
export function readLines(input: Readable, maxBytes: number, on: { line(text: string): void; oversize(): void }): void {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      const end = nl === -1 ? chunk.length : nl;
      if (!skipping) {
        size += end - start;
        if (size > maxBytes) {
          skipping = true;
          parts = [];
          on.oversize();
        } else parts.push(chunk.subarray(start, end));
      }
      if (nl === -1) return;
      if (!skipping) on.line(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
      parts = [];
      size = 0;
      skipping = false;
      start = nl + 1;
    }
  });
}

// JSON-RPC answers an error whose request's id could not be read with id null, which the SDK's type leaves out.
const error = (id: string | number | null, code: number, message: string): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, error: { code, message } }) as unknown as JSONRPCMessage;

/** The answer to a message over the limit, whose id is not read. */
export const oversizeAnswer = (): JSONRPCMessage =>
  error(null, -32600, `Invalid Request: a message over ${MAX_LINE_BYTES >> 20} MiB`);

/**
 * One line of stdin as a message to hand on, or the JSON-RPC error that answers it: not JSON (-32700), params of the
 * wrong shape for a method served (-32602, with a plain message rather than the SDK's -32603 and validator dump), or
 * not a JSON-RPC message (-32600). Every request gets an answer, so no client waits on an id until it gives up.
 */
export function vetLine(line: string): { message: JSONRPCMessage } | { answer: JSONRPCMessage } | undefined {
  if (line.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { answer: error(null, -32700, 'Parse error: not JSON') };
  }
  const raw = (value as { id?: unknown } | null)?.id;
  const id = typeof raw === 'string' || typeof raw === 'number' ? raw : null;
  const bad = misshapenParams(value);
  if (bad) return { answer: invalidParams({ ...bad, id }) };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  return { answer: error(id, -32600, 'Invalid Request: not a JSON-RPC 2.0 message') };
}
