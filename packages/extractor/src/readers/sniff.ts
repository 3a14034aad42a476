import type { Message, ReadIssue } from '../conversation.js';
import { ClaudeCodeParser } from './claude-code.js';
import { type LineParser, isRecord } from './line-parser.js';
import { OpenClawSessionParser } from './openclaw.js';

const OPENCLAW_TYPES = new Set(['session', 'message', 'model_change', 'thinking_level_change', 'custom']);
const CLAUDE_TYPES = new Set(['user', 'assistant', 'summary', 'system', 'file-history-snapshot', 'queue-operation']);

/**
 * A JSONL parser that decides between Claude Code and OpenClaw session formats on the first line whose
 * `type` identifies one; lines before that are metadata of either format and carry no conversation.
 */
export class SniffingJsonlParser implements LineParser {
  private inner: ClaudeCodeParser | OpenClawSessionParser | undefined;
  private readonly early: ReadIssue[] = [];

  get format(): 'claude-code' | 'openclaw-session' | undefined {
    if (this.inner instanceof ClaudeCodeParser) return 'claude-code';
    if (this.inner instanceof OpenClawSessionParser) return 'openclaw-session';
    return undefined;
  }

  get messages(): Message[] {
    return this.inner?.messages ?? [];
  }

  get issues(): ReadIssue[] {
    return [...this.early, ...(this.inner?.issues ?? [])];
  }

  push(line: string, lineNo: number): void {
    if (!this.inner) {
      let type: unknown;
      try {
        const v: unknown = JSON.parse(line);
        type = isRecord(v) ? v.type : undefined;
      } catch {
        if (line.trim()) this.early.push({ kind: 'malformed_line', line: lineNo, message: 'line is not valid JSON' });
        return;
      }
      if (typeof type === 'string' && OPENCLAW_TYPES.has(type)) this.inner = new OpenClawSessionParser();
      else if (typeof type === 'string' && CLAUDE_TYPES.has(type)) this.inner = new ClaudeCodeParser();
      else return;
    }
    this.inner.push(line, lineNo);
  }

  end(): void {
    this.inner?.end();
  }
}
