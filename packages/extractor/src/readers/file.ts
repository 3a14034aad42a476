import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Conversation, ReadIssue, SourceClient } from '../conversation.js';
import { TRANSCRIPT_MAX_CHARS } from '../types.js';
import { ClaudeCodeParser } from './claude-code.js';
import { CodexRolloutParser } from './codex.js';
import { GEMINI_MAX_CHARS, GeminiSessionParser } from './gemini.js';
import type { LineParser } from './line-parser.js';
import { OpenClawMemoryParser, OpenClawSessionParser } from './openclaw.js';
import { PlainTextParser } from './plain.js';
import { SniffingJsonlParser } from './sniff.js';

export type TranscriptFormat =
  | 'claude-code'
  | 'openclaw-session'
  | 'openclaw-memory'
  | 'gemini-cli'
  | 'codex'
  | 'plain';

export interface ReadFileOptions {
  /**
   * Omit to choose by extension: .jsonl sniffed (Claude Code, OpenClaw or Codex), .md OpenClaw memory, .json a
   * Gemini CLI session, anything else plain text.
   */
  format?: TranscriptFormat;
  /** Stop once this many characters of message text are collected (memory stays bounded). */
  maxChars?: number;
  /** A longer line is dropped and reported; protects against a huge file with no newlines. */
  maxLineChars?: number;
  /** Read-stream chunk size in bytes. */
  highWaterMark?: number;
  /** Called after each chunk is consumed, with the bytes read so far (progress reporting). */
  onChunk?: (bytesRead: number) => void | Promise<void>;
}

export interface FileReadResult {
  conversation: Conversation;
  issues: ReadIssue[];
  format: TranscriptFormat | 'binary';
  bytesRead: number;
  size: number;
}

const BINARY_SNIFF_BYTES = 8192;
/**
 * Base64 payload of an inline attachment in a JSON transcript: a `"data":"iVBOR..."` field (Claude Code) or a data
 * URL (`"image_url":"data:image/png;base64,iVBOR..."`, Codex).
 */
const INLINE_DATA = /("data"\s*:\s*"|;base64,)[A-Za-z0-9+/=]{1024,}/g;

function declaredFormat(path: string): TranscriptFormat | undefined {
  if (path.endsWith('.jsonl')) return undefined;
  if (path.endsWith('.md')) return 'openclaw-memory';
  if (path.endsWith('.json')) return 'gemini-cli';
  return 'plain';
}

function parserFor(format: TranscriptFormat | undefined, path: string): LineParser {
  const f = format ?? declaredFormat(path);
  switch (f) {
    case 'claude-code':
      return new ClaudeCodeParser();
    case 'openclaw-session':
      return new OpenClawSessionParser();
    case 'openclaw-memory':
      return new OpenClawMemoryParser();
    case 'gemini-cli':
      return new GeminiSessionParser();
    case 'codex':
      return new CodexRolloutParser();
    case 'plain':
      return new PlainTextParser();
    default:
      return new SniffingJsonlParser();
  }
}

function sourceOf(format: TranscriptFormat | 'binary' | undefined): SourceClient {
  if (format === 'claude-code') return 'claude-code';
  if (format === 'openclaw-session' || format === 'openclaw-memory') return 'openclaw';
  if (format === 'gemini-cli') return 'gemini-cli';
  if (format === 'codex') return 'codex';
  return 'plain';
}

/**
 * Streams a transcript file into a Conversation without ever holding more than `maxChars` of text
 * (plus one line). Bad input is reported as issues, never thrown: binary files are refused, invalid
 * UTF-8 is decoded with replacement characters, malformed lines are skipped, oversize input is cut,
 * and a file modified during the read is flagged so the caller can retry it later.
 */
export async function readTranscriptFile(path: string, opts: ReadFileOptions = {}): Promise<FileReadResult> {
  const maxChars = opts.maxChars ?? TRANSCRIPT_MAX_CHARS;
  const parser = parserFor(opts.format, path);
  // A Gemini session is one pretty-printed document: a long tool output is one line of it, and dropping that line
  // would lose the whole session, so only the document's own cap applies.
  const maxLineChars = opts.maxLineChars ?? (parser instanceof GeminiSessionParser ? GEMINI_MAX_CHARS : 1_000_000);
  const json = !(parser instanceof PlainTextParser || parser instanceof OpenClawMemoryParser);
  const issues: ReadIssue[] = [];
  const finish = (format: TranscriptFormat | 'binary', bytesRead: number, size: number): FileReadResult => {
    const detected = parser instanceof SniffingJsonlParser ? parser.format : undefined;
    const fmt = format === 'binary' ? format : (detected ?? format);
    // A binary file yields nothing, not the noise parsed from its first chunks.
    return {
      conversation: { source: sourceOf(fmt), messages: fmt === 'binary' ? [] : parser.messages },
      issues: fmt === 'binary' ? issues : [...parser.issues, ...issues],
      format: fmt,
      bytesRead,
      size,
    };
  };
  const declared: TranscriptFormat = opts.format ?? declaredFormat(path) ?? 'plain';

  let before: Awaited<ReturnType<typeof stat>>;
  try {
    before = await stat(path);
  } catch (err) {
    issues.push({ kind: 'unreadable', message: (err as NodeJS.ErrnoException).code ?? 'cannot stat file' });
    return finish(declared, 0, 0);
  }

  let decoder = new TextDecoder('utf-8', { fatal: true });
  let pending = '';
  let lineNo = 0;
  let skippingLongLine = false;
  let chars = 0;
  let counted = 0;
  let bytesRead = 0;
  let stopped = false;

  const countNew = (): void => {
    const msgs = parser.messages;
    for (; counted < msgs.length; counted++) chars += msgs[counted]?.text.length ?? 0;
  };
  const line = (text: string): void => {
    lineNo++;
    parser.push(text.endsWith('\r') ? text.slice(0, -1) : text, lineNo);
    countNew();
  };

  const stream = createReadStream(path, { highWaterMark: opts.highWaterMark ?? 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (bytesRead < BINARY_SNIFF_BYTES && chunk.subarray(0, BINARY_SNIFF_BYTES - bytesRead).includes(0)) {
        issues.push({ kind: 'binary', message: 'file contains NUL bytes; not a text transcript' });
        return finish('binary', bytesRead + chunk.length, before.size);
      }
      bytesRead += chunk.length;
      let text: string;
      try {
        text = decoder.decode(chunk, { stream: true });
      } catch {
        issues.push({ kind: 'invalid_utf8', message: `invalid UTF-8 near byte ${bytesRead - chunk.length}; replaced` });
        decoder = new TextDecoder('utf-8');
        text = decoder.decode(chunk, { stream: true });
      }
      pending += text;
      let start = 0;
      let nl = pending.indexOf('\n');
      while (nl !== -1 && chars < maxChars) {
        if (skippingLongLine) {
          skippingLongLine = false;
          lineNo++;
        } else line(pending.slice(start, nl));
        start = nl + 1;
        nl = pending.indexOf('\n', start);
      }
      pending = pending.slice(start);
      // Inline attachments (a pasted screenshot, a PDF) are base64 in the same JSON line as the prompt sent with them;
      // no reader uses them, so their data is emptied before the line counts as too long. The data may still be
      // arriving: emptied up to here, the rest follows `"data":"` (or `;base64,`) and is emptied on the next pass.
      if (json && pending.length > maxLineChars) pending = pending.replace(INLINE_DATA, '$1');
      if (chars < maxChars && pending.length > maxLineChars) {
        if (!skippingLongLine) {
          issues.push({
            kind: 'malformed_line',
            line: lineNo + 1,
            message: `line longer than ${maxLineChars} chars dropped`,
          });
        }
        skippingLongLine = true;
        pending = '';
      }
      await opts.onChunk?.(bytesRead);
      if (chars >= maxChars) {
        stopped = true;
        break;
      }
    }
    if (!stopped) {
      pending += decoder.decode();
      if (pending.length > 0 && !skippingLongLine) line(pending);
    }
  } catch (err) {
    issues.push({ kind: 'unreadable', message: (err as NodeJS.ErrnoException).code ?? 'read failed' });
  } finally {
    stream.destroy();
  }
  parser.end();
  countNew();

  if (stopped || chars > maxChars) {
    trimTo(parser, maxChars);
    issues.push({
      kind: 'truncated',
      message: `transcript cut at ${maxChars} characters after reading ${bytesRead} of ${before.size} bytes`,
    });
  }

  try {
    const after = await stat(path);
    if (after.size !== before.size || after.mtimeMs !== before.mtimeMs || after.ino !== before.ino) {
      issues.push({ kind: 'changed_while_reading', message: 'file was modified during the read; read again later' });
    }
  } catch {
    issues.push({ kind: 'changed_while_reading', message: 'file disappeared during the read' });
  }
  return finish(declared, bytesRead, before.size);
}

/** Drops messages past the budget and cuts the one that crosses it. */
function trimTo(parser: LineParser, maxChars: number): void {
  const msgs = parser.messages;
  let total = 0;
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (!m) break;
    if (total + m.text.length > maxChars) {
      m.text = m.text.slice(0, Math.max(0, maxChars - total));
      msgs.length = m.text ? i + 1 : i;
      return;
    }
    total += m.text.length;
  }
}
