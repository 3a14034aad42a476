import type { Conversation, Message, ReadIssue } from '../conversation.js';
import { type LineParser, isRecord, parseJsonLine, parseLines, stringifyInput, textOf } from './line-parser.js';

/**
 * Claude Code session JSONL (`~/.claude/projects/<project>/<session>.jsonl`).
 * Only `user` and `assistant` lines carry conversation; every other line type (summary, system,
 * file-history-snapshot, ...) is metadata and skipped silently.
 */
export class ClaudeCodeParser implements LineParser {
  readonly messages: Message[] = [];
  readonly issues: ReadIssue[] = [];
  /** tool_use id -> tool name, so a tool_result can say which tool it answers. */
  private readonly toolNames = new Map<string, string>();

  push(line: string, lineNo: number): void {
    const entry = parseJsonLine(line, lineNo, this.issues);
    if (!entry || (entry.type !== 'user' && entry.type !== 'assistant')) return;
    // isMeta lines are client-injected (local-command caveats, reminders), not the conversation. The summary written
    // after a compaction restates, in the client's words, the session the same file (or the one it continues) holds.
    if (entry.isMeta === true || entry.isCompactSummary === true) return;
    const message = entry.message;
    if (!isRecord(message)) return;
    const role = entry.type;
    const content = message.content;
    if (typeof content === 'string') {
      if (content.trim()) this.messages.push({ role, kind: 'text', text: content });
      return;
    }
    if (!Array.isArray(content)) return;
    for (const block of content) {
      if (!isRecord(block)) continue;
      const m = this.block(role, block);
      if (m) this.messages.push(m);
    }
  }

  end(): void {}

  private block(role: 'user' | 'assistant', b: Record<string, unknown>): Message | undefined {
    switch (b.type) {
      case 'text':
        return typeof b.text === 'string' && b.text.trim() ? { role, kind: 'text', text: b.text } : undefined;
      case 'thinking':
        return typeof b.thinking === 'string' && b.thinking.trim()
          ? { role, kind: 'thinking', text: b.thinking }
          : undefined;
      case 'tool_use': {
        const tool = typeof b.name === 'string' ? b.name : 'unknown';
        if (typeof b.id === 'string') this.toolNames.set(b.id, tool);
        return { role, kind: 'tool_use', tool, text: stringifyInput(b.input) };
      }
      case 'tool_result': {
        const tool = typeof b.tool_use_id === 'string' ? this.toolNames.get(b.tool_use_id) : undefined;
        const m: Message = { role: 'tool', kind: 'tool_result', text: textOf(b.content) };
        if (tool) m.tool = tool;
        if (b.is_error === true) m.is_error = true;
        return m;
      }
      default:
        return undefined;
    }
  }
}

export function readClaudeCode(text: string): { conversation: Conversation; issues: ReadIssue[] } {
  const p = parseLines(new ClaudeCodeParser(), text);
  return { conversation: { source: 'claude-code', messages: p.messages }, issues: p.issues };
}
