import type { Conversation, Message, ReadIssue, Role } from '../conversation.js';
import { type LineParser, parseLines } from './line-parser.js';

const SPEAKER = /^(user|human|me|assistant|ai|agent|claude|system|tool)\s*:\s?(.*)$/i;

function roleOf(speaker: string): Role {
  const s = speaker.toLowerCase();
  if (s === 'user' || s === 'human' || s === 'me') return 'user';
  if (s === 'system') return 'system';
  if (s === 'tool') return 'tool';
  return 'assistant';
}

/**
 * Plain text. Lines opening with a speaker label (`User:`, `Assistant:`, ...) start a new message;
 * without labels, blank-line-separated paragraphs become user messages.
 */
export class PlainTextParser implements LineParser {
  readonly messages: Message[] = [];
  readonly issues: ReadIssue[] = [];
  private role: Role = 'user';
  private lines: string[] = [];
  /** Once any label was seen, blank lines belong to the current speaker's message. */
  private labelled = false;

  push(line: string): void {
    const speaker = SPEAKER.exec(line);
    if (speaker) {
      this.flush();
      this.role = roleOf(speaker[1] ?? 'user');
      this.labelled = true;
      this.lines.push(speaker[2] ?? '');
    } else if (line.trim() === '' && !this.labelled) {
      this.flush();
    } else {
      this.lines.push(line);
    }
  }

  end(): void {
    this.flush();
  }

  private flush(): void {
    const text = this.lines.join('\n').trim();
    this.lines = [];
    if (text) this.messages.push({ role: this.role, kind: this.role === 'tool' ? 'tool_result' : 'text', text });
  }
}

export function readPlainText(text: string): { conversation: Conversation; issues: ReadIssue[] } {
  const p = parseLines(new PlainTextParser(), text);
  return { conversation: { source: 'plain', messages: p.messages }, issues: p.issues };
}
