import type { Conversation, Message, ReadIssue } from '../conversation.js';
import { type LineParser, isRecord, parseJsonLine, parseLines, stringifyInput, textOf } from './line-parser.js';

/**
 * OpenClaw session JSONL (`~/.openclaw/agents/<agent>/sessions/<id>.jsonl`): `message` lines wrap
 * `{role: user|assistant|toolResult, content: [...]}`; tool calls are `toolCall` blocks. Other line
 * types (session, model_change, thinking_level_change, custom) are metadata and skipped.
 */
export class OpenClawSessionParser implements LineParser {
  readonly messages: Message[] = [];
  readonly issues: ReadIssue[] = [];

  push(line: string, lineNo: number): void {
    const entry = parseJsonLine(line, lineNo, this.issues);
    if (entry?.type !== 'message' || !isRecord(entry.message)) return;
    const msg = entry.message;
    if (msg.role === 'toolResult') {
      const m: Message = { role: 'tool', kind: 'tool_result', text: textOf(msg.content) };
      if (typeof msg.toolName === 'string') m.tool = msg.toolName;
      if (msg.isError === true) m.is_error = true;
      this.messages.push(m);
      return;
    }
    if (msg.role !== 'user' && msg.role !== 'assistant') return;
    const role = msg.role;
    if (typeof msg.content === 'string') {
      if (msg.content.trim()) this.messages.push({ role, kind: 'text', text: msg.content });
      return;
    }
    if (!Array.isArray(msg.content)) return;
    for (const b of msg.content) {
      if (!isRecord(b)) continue;
      if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) {
        this.messages.push({ role, kind: 'text', text: b.text });
      } else if (b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking.trim()) {
        this.messages.push({ role, kind: 'thinking', text: b.thinking });
      } else if (b.type === 'toolCall' || b.type === 'tool_use') {
        const tool = typeof b.name === 'string' ? b.name : 'unknown';
        this.messages.push({ role, kind: 'tool_use', tool, text: stringifyInput(b.arguments ?? b.input) });
      }
    }
  }

  end(): void {}
}

const HEADING = /^#{1,6}\s+\S/;

/**
 * OpenClaw memory Markdown (`memory/YYYY-MM-DD.md` daily logs, `MEMORY.md`): notes the agent wrote
 * for itself. Each heading starts a section; each section becomes one assistant text message with its
 * heading kept, since headings usually name the task.
 */
export class OpenClawMemoryParser implements LineParser {
  readonly messages: Message[] = [];
  readonly issues: ReadIssue[] = [];
  private section: string[] = [];

  push(line: string): void {
    if (HEADING.test(line)) this.flush();
    this.section.push(line);
  }

  end(): void {
    this.flush();
  }

  private flush(): void {
    const text = this.section.join('\n').trim();
    this.section = [];
    // A lone heading (e.g. the date title of a daily file) carries no knowledge.
    if (text && !(HEADING.test(text) && !text.includes('\n'))) {
      this.messages.push({ role: 'assistant', kind: 'text', text });
    }
  }
}

export function readOpenClawSession(text: string): { conversation: Conversation; issues: ReadIssue[] } {
  const p = parseLines(new OpenClawSessionParser(), text);
  return { conversation: { source: 'openclaw', messages: p.messages }, issues: p.issues };
}

export function readOpenClawMemory(text: string): { conversation: Conversation; issues: ReadIssue[] } {
  const p = parseLines(new OpenClawMemoryParser(), text);
  return { conversation: { source: 'openclaw', messages: p.messages }, issues: p.issues };
}
