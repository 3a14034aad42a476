import type { Message, ReadIssue } from '../conversation.js';
import { type LineParser, isRecord, parseJsonLine, stringifyInput, textOf } from './line-parser.js';

/** Line types of a rollout line `{timestamp, type, payload}`. */
const ROLLOUT_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted']);
/** Response items a 2025 rollout wrote bare, one per line, after its session-meta line. */
const LEGACY_ITEM_TYPES = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'local_shell_call',
  'custom_tool_call',
  'custom_tool_call_output',
]);
/** Response items that carry no conversation: workspace snapshots, compaction state, image and tool-search calls. */
const SILENT_ITEM_TYPES = new Set([
  'ghost_snapshot',
  'compaction',
  'compaction_summary',
  'image_generation_call',
  'tool_search_call',
  'tool_search_output',
  'other',
]);
/** Context a 2025 Codex injected as user messages (AGENTS.md, the environment), not the person's words. */
const INJECTED = /^\s*<(user_instructions|environment_context)>/i;

/** Whether a parsed JSONL line is a Codex rollout line, in the current shape or the 2025 one. */
export function isCodexRolloutLine(v: Record<string, unknown>): boolean {
  if (typeof v.type === 'string' && ROLLOUT_TYPES.has(v.type)) return isRecord(v.payload);
  if (v.record_type === 'state') return true;
  // The 2025 first line is the session meta itself, `{id, timestamp, instructions?, git?}`, with no type.
  if (v.type === undefined) return typeof v.id === 'string' && typeof v.timestamp === 'string';
  if (typeof v.type !== 'string' || !LEGACY_ITEM_TYPES.has(v.type)) return false;
  // OpenClaw also writes `message` lines, with the message nested instead of a top-level role.
  return v.type !== 'message' || (typeof v.role === 'string' && Array.isArray(v.content));
}

/**
 * The header Codex's shell tools put above a command's output (`Exit code: 1`, or `Chunk ID`, `Wall time`,
 * `Process exited with code 1`, `Original token count` lines), and the exit status in it.
 */
const OUTPUT_HEADER =
  /^(?:Exit code|Chunk ID|Wall time|Process exited|Process running)[^\n]*\n(?:[^\n]*\n){0,8}?Output:\n/;
const EXIT_STATUS = /^(?:Exit code:|Process exited with code) (-?\d+)$/m;

/**
 * A tool's output as the model saw it: a string, content items (`[{type: input_text, text}]`), or
 * `{content, success}`. Codex's shell tools answer `{"output", "metadata": {"exit_code"}}` as a JSON string, or
 * text under a header: the command's output is kept, and a non-zero exit marks the result an error.
 */
function toolOutput(output: unknown): { text: string; isError: boolean } {
  if (Array.isArray(output)) return { text: textOf(output), isError: false };
  if (isRecord(output)) {
    const text = typeof output.content === 'string' ? output.content : stringifyInput(output);
    return { text, isError: output.success === false };
  }
  if (typeof output !== 'string') return { text: '', isError: false };
  if (output.startsWith('{"output"')) {
    try {
      const v: unknown = JSON.parse(output);
      if (isRecord(v) && typeof v.output === 'string' && isRecord(v.metadata)) {
        return { text: v.output, isError: typeof v.metadata.exit_code === 'number' && v.metadata.exit_code !== 0 };
      }
    } catch {
      // Not the shell tool's JSON after all: the text as it is.
    }
  }
  const header = OUTPUT_HEADER.exec(output)?.[0];
  if (header === undefined) return { text: output, isError: false };
  const exit = EXIT_STATUS.exec(header)?.[1];
  return { text: output.slice(header.length), isError: exit !== undefined && exit !== '0' };
}

/**
 * Codex CLI session rollout (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`). Each line is
 * `{timestamp, type, payload}`: `session_meta` (id, cwd), `response_item` (the model's history: messages,
 * reasoning summaries, function/custom/local-shell calls and their outputs), `event_msg` (client events),
 * `turn_context` (per-turn settings) and `compacted` (a summary restating the session the file already holds); the
 * last two are not read. A 2025 rollout starts with the session meta object itself and holds bare response items. Both shapes are read line by line; a file may mix them when a newer Codex resumes an old session.
 *
 * Codex records what the person typed twice: as a user `response_item`, next to the context it injects as user
 * messages too (AGENTS.md, the environment), and as a `user_message` event, which holds the typed text alone. The
 * person's turns are read from the events and everything else from the response items; the events copying
 * assistant text, reasoning and tool results are skipped. Unknown line types and response items are skipped and
 * counted as issues; unknown events are client notices, skipped silently.
 */
export class CodexRolloutParser implements LineParser {
  readonly messages: Message[] = [];
  readonly issues: ReadIssue[] = [];
  /** From the rollout's first session meta (a forked rollout also holds its parent's). */
  sessionId: string | null = null;
  cwd: string | null = null;
  /** call_id -> tool name, so an output can say which call it answers. */
  private readonly toolNames = new Map<string, string>();
  /** Unknown line or response item type -> first line and count, reported once per type at the end. */
  private readonly unknown = new Map<string, { line: number; count: number }>();

  push(line: string, lineNo: number): void {
    const entry = parseJsonLine(line, lineNo, this.issues);
    if (!entry) return;
    if (typeof entry.type === 'string' && ROLLOUT_TYPES.has(entry.type)) {
      if (isRecord(entry.payload)) this.rolloutLine(entry.type, entry.payload, lineNo);
      else this.issues.push({ kind: 'malformed_line', line: lineNo, message: 'rollout line without a payload object' });
    } else if (entry.record_type === 'state') {
      // 2025 session state (previous response id): no conversation.
    } else if (entry.type === undefined && typeof entry.id === 'string') {
      this.meta(entry);
    } else if (entry.type === 'message') {
      // A 2025 rollout has no user_message events: the person's turns are its user messages, less injected context.
      if (entry.role === 'user') this.userText(textOf(entry.content), true);
      else this.item(entry, lineNo);
    } else {
      this.item(entry, lineNo);
    }
  }

  end(): void {
    for (const [type, { line, count }] of this.unknown) {
      this.issues.push({
        kind: 'malformed_line',
        line,
        message: `${count} line${count === 1 ? '' : 's'} of unknown Codex type "${type}" skipped`,
      });
    }
    this.unknown.clear();
  }

  private rolloutLine(type: string, payload: Record<string, unknown>, lineNo: number): void {
    if (type === 'session_meta') this.meta(payload);
    else if (type === 'response_item') {
      // The person's words come from the user_message event; developer messages are Codex's instructions.
      if (payload.type === 'message' && payload.role !== 'assistant') return;
      this.item(payload, lineNo);
    } else if (type === 'event_msg' && payload.type === 'user_message') {
      // Versions that tagged these events also sent AGENTS.md and the environment as user_message events.
      if (typeof payload.kind === 'string' && payload.kind !== 'plain') return;
      if (typeof payload.message === 'string') this.userText(payload.message, false);
    }
  }

  private meta(m: Record<string, unknown>): void {
    if (this.sessionId !== null) return;
    this.sessionId = typeof m.id === 'string' ? m.id : null;
    this.cwd = typeof m.cwd === 'string' ? m.cwd : null;
  }

  private userText(text: string, legacy: boolean): void {
    if (!text.trim() || (legacy && INJECTED.test(text))) return;
    this.messages.push({ role: 'user', kind: 'text', text });
  }

  private item(p: Record<string, unknown>, lineNo: number): void {
    const callId = typeof p.call_id === 'string' ? p.call_id : undefined;
    switch (p.type) {
      case 'message': {
        const text = textOf(p.content);
        if (p.role === 'assistant' && text.trim()) this.messages.push({ role: 'assistant', kind: 'text', text });
        return;
      }
      case 'reasoning': {
        const text = textOf(p.summary);
        if (text.trim()) this.messages.push({ role: 'assistant', kind: 'thinking', text });
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
        this.call(typeof p.name === 'string' ? p.name : 'unknown', callId, stringifyInput(p.arguments ?? p.input));
        return;
      case 'local_shell_call':
        this.call('local_shell', callId, stringifyInput(p.action));
        return;
      case 'web_search_call':
        this.call('web_search', callId, stringifyInput(p.action));
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, isError } = toolOutput(p.output);
        const m: Message = { role: 'tool', kind: 'tool_result', text };
        const tool = callId === undefined ? undefined : this.toolNames.get(callId);
        if (tool) m.tool = tool;
        if (isError) m.is_error = true;
        this.messages.push(m);
        return;
      }
      default:
        if (typeof p.type === 'string' && SILENT_ITEM_TYPES.has(p.type)) return;
        this.countUnknown(typeof p.type === 'string' ? p.type : '(none)', lineNo);
    }
  }

  private call(tool: string, callId: string | undefined, text: string): void {
    if (callId !== undefined) this.toolNames.set(callId, tool);
    this.messages.push({ role: 'assistant', kind: 'tool_use', tool, text });
  }

  private countUnknown(type: string, lineNo: number): void {
    const seen = this.unknown.get(type);
    if (seen) seen.count++;
    else this.unknown.set(type, { line: lineNo, count: 1 });
  }
}
