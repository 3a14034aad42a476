import type { Conversation, Message } from '../conversation.js';

/** Tool payloads beyond this are mostly file dumps and logs; their head and tail carry the signal. */
const TOOL_TEXT_MAX = 2000;

function clip(text: string): string {
  if (text.length <= TOOL_TEXT_MAX) return text;
  const half = TOOL_TEXT_MAX / 2;
  return `${text.slice(0, half)}\n[... ${text.length - TOOL_TEXT_MAX} chars omitted ...]\n${text.slice(-half)}`;
}

function header(m: Message): string {
  const label =
    m.kind === 'text' ? m.role : `${m.role} ${m.kind}${m.tool ? ` ${m.tool}` : ''}${m.is_error ? ' error' : ''}`;
  return `[${label}]\n`;
}

const bodyOf = (m: Message): string => (m.kind === 'tool_use' || m.kind === 'tool_result' ? clip(m.text) : m.text);

export function renderMessage(m: Message): string {
  return `${header(m)}${bodyOf(m)}\n\n`;
}

export interface RenderedTranscript {
  text: string;
  /** [start, end) offset of each message in `text`, same order as the conversation. */
  spans: Array<{ start: number; end: number }>;
  /** Where each message's own text starts in `text`, or -1 when only part of it is there (a clipped tool payload). */
  bodies: number[];
}

/** The textual transcript the pipeline chunks and a model reads. */
export function renderConversation(c: Conversation): RenderedTranscript {
  let text = '';
  const spans: RenderedTranscript['spans'] = [];
  const bodies: number[] = [];
  for (const m of c.messages) {
    const head = header(m);
    const body = bodyOf(m);
    const block = `${head}${body}\n\n`;
    spans.push({ start: text.length, end: text.length + block.length });
    bodies.push(body === m.text ? text.length + head.length : -1);
    text += block;
  }
  return { text, spans, bodies };
}
