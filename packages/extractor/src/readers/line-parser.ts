import type { Message, ReadIssue } from '../conversation.js';

/** A format reader fed one line at a time, so files can be streamed instead of loaded whole. */
export interface LineParser {
  push(line: string, lineNo: number): void;
  /** Flushes any buffered state (e.g. the last Markdown section). */
  end(): void;
  readonly messages: Message[];
  readonly issues: ReadIssue[];
}

/** Runs a parser over a whole in-memory text. */
export function parseLines(parser: LineParser, text: string): LineParser {
  const lines = text.split(/\r?\n/);
  // A trailing newline yields one empty last element that is not a line.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (const [i, line] of lines.entries()) parser.push(line, i + 1);
  parser.end();
  return parser;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON-stringifies tool input compactly; a tool call's arguments are part of what was tried. */
export function stringifyInput(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input === undefined) return '';
  try {
    return JSON.stringify(input);
  } catch {
    return String(input);
  }
}

/** Text of a content value that is either a string or an array of `{type:'text', text}` blocks. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) => (isRecord(b) && typeof b.text === 'string' ? b.text : ''))
    .filter((t) => t.length > 0)
    .join('\n');
}

/** Parses one JSONL line, recording a malformed_line issue instead of throwing. */
export function parseJsonLine(line: string, lineNo: number, issues: ReadIssue[]): Record<string, unknown> | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (isRecord(value)) return value;
    issues.push({ kind: 'malformed_line', line: lineNo, message: 'line is JSON but not an object' });
  } catch {
    issues.push({ kind: 'malformed_line', line: lineNo, message: 'line is not valid JSON (truncated or corrupt)' });
  }
  return undefined;
}
