import type { Message, ReadIssue } from '../conversation.js';
import { type LineParser, isRecord, stringifyInput } from './line-parser.js';

/** A session document larger than this is refused rather than held in memory whole. */
export const GEMINI_MAX_CHARS = 64 * 1024 * 1024;

/** Text of a Gemini content value: a string, a part (`{text}`), or a list of either. */
function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map(partsText)
      .filter((t) => t.length > 0)
      .join('\n');
  if (!isRecord(content)) return '';
  if (typeof content.text === 'string') return content.text;
  const response = isRecord(content.functionResponse) ? content.functionResponse.response : undefined;
  if (isRecord(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
    return stringifyInput(response);
  }
  return '';
}

/**
 * Gemini CLI chat recording (`~/.gemini/tmp/<project>/chats/session-*.json`): one JSON document,
 * `{sessionId, projectHash, startTime, lastUpdated, messages: [...]}`, rewritten whole on every turn. Messages
 * are `user` or `gemini` (with `thoughts` and `toolCalls`); `info`, `error`, `warning` and unknown types are
 * client notices, skipped. The document is buffered and parsed at the end, since it is not line-oriented.
 */
export class GeminiSessionParser implements LineParser {
  readonly messages: Message[] = [];
  readonly issues: ReadIssue[] = [];
  private lines: string[] = [];
  private size = 0;
  private tooLarge = false;

  push(line: string): void {
    if (this.tooLarge) return;
    this.size += line.length + 1;
    if (this.size > GEMINI_MAX_CHARS) {
      this.tooLarge = true;
      this.lines = [];
      this.issues.push({
        kind: 'truncated',
        message: `session document larger than ${GEMINI_MAX_CHARS} characters; not read`,
      });
      return;
    }
    this.lines.push(line);
  }

  end(): void {
    if (this.tooLarge) return;
    const text = this.lines.join('\n');
    this.lines = [];
    if (text.trim() === '') return;
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      this.issues.push({
        kind: 'malformed_line',
        message: 'session document is not valid JSON (half-written or corrupt)',
      });
      return;
    }
    if (!isRecord(doc) || !Array.isArray(doc.messages)) {
      this.issues.push({ kind: 'malformed_line', message: 'not a Gemini CLI session document (no messages list)' });
      return;
    }
    for (const m of doc.messages) if (isRecord(m)) this.message(m);
  }

  private message(m: Record<string, unknown>): void {
    if (m.type === 'user') {
      const text = partsText(m.content);
      if (text.trim()) this.messages.push({ role: 'user', kind: 'text', text });
      return;
    }
    if (m.type !== 'gemini') return;
    if (Array.isArray(m.thoughts)) {
      for (const t of m.thoughts) {
        if (!isRecord(t)) continue;
        const text = [t.subject, t.description].filter((s) => typeof s === 'string' && s.trim()).join(': ');
        if (text) this.messages.push({ role: 'assistant', kind: 'thinking', text });
      }
    }
    const text = partsText(m.content);
    if (text.trim()) this.messages.push({ role: 'assistant', kind: 'text', text });
    if (!Array.isArray(m.toolCalls)) return;
    for (const call of m.toolCalls) {
      if (!isRecord(call)) continue;
      const tool = typeof call.name === 'string' ? call.name : 'unknown';
      this.messages.push({ role: 'assistant', kind: 'tool_use', tool, text: stringifyInput(call.args) });
      const output = partsText(call.result) || (typeof call.resultDisplay === 'string' ? call.resultDisplay : '');
      if (call.result === undefined && call.resultDisplay === undefined) continue;
      const result: Message = { role: 'tool', kind: 'tool_result', tool, text: output };
      if (call.status === 'error') result.is_error = true;
      this.messages.push(result);
    }
  }
}
