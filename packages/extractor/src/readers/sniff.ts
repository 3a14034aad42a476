import type { Message, ReadIssue } from '../conversation.js';
import { ClaudeCodeParser } from './claude-code.js';
import { CodexRolloutParser, isCodexRolloutLine } from './codex.js';
import { type LineParser, isRecord } from './line-parser.js';
import { OpenClawSessionParser } from './openclaw.js';

const OPENCLAW_TYPES = new Set(['session', 'message', 'model_change', 'thinking_level_change', 'custom']);
const CLAUDE_TYPES = new Set(['user', 'assistant', 'summary', 'system', 'file-history-snapshot', 'queue-operation']);

/**
 * A JSONL parser that decides between Claude Code, OpenClaw and Codex session formats on the first line that
 * identifies one (its `type`, or for a 2025 Codex rollout its session-meta shape); lines before that are metadata
 * of any of them and carry no conversation.
 */
export class SniffingJsonlParser implements LineParser {
  private inner: ClaudeCodeParser | OpenClawSessionParser | CodexRolloutParser | undefined;
  private readonly early: ReadIssue[] = [];

  get format(): 'claude-code' | 'openclaw-session' | 'codex' | undefined {
    if (this.inner instanceof ClaudeCodeParser) return 'claude-code';
    if (this.inner instanceof OpenClawSessionParser) return 'openclaw-session';
    if (this.inner instanceof CodexRolloutParser) return 'codex';
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
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        if (line.trim()) this.early.push({ kind: 'malformed_line', line: lineNo, message: 'line is not valid JSON' });
        return;
      }
      if (!isRecord(v)) return;
      const type = v.type;
      if (isCodexRolloutLine(v)) this.inner = new CodexRolloutParser();
      else if (typeof type === 'string' && OPENCLAW_TYPES.has(type)) this.inner = new OpenClawSessionParser();
      else if (typeof type === 'string' && CLAUDE_TYPES.has(type)) this.inner = new ClaudeCodeParser();
      else return;
    }
    this.inner.push(line, lineNo);
  }

  end(): void {
    this.inner?.end();
  }
}
