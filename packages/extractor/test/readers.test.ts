import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readClaudeCode } from '../src/readers/claude-code.js';
import { readTranscriptFile } from '../src/readers/file.js';
import { readOpenClawMemory, readOpenClawSession } from '../src/readers/openclaw.js';
import { readPlainText } from '../src/readers/plain.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const text = (name: string) => readFileSync(fixture(name), 'utf8');

describe('Claude Code JSONL', () => {
  it('normalizes text, thinking, tool_use and tool_result blocks and skips metadata lines', () => {
    const { conversation, issues } = readClaudeCode(text('claude-code-session.jsonl'));
    expect(issues).toEqual([]);
    expect(conversation.source).toBe('claude-code');
    const kinds = conversation.messages.map((m) => `${m.role}:${m.kind}`);
    expect(kinds[0]).toBe('user:text');
    expect(kinds).toContain('assistant:thinking');
    expect(kinds).toContain('assistant:tool_use');
    expect(kinds).toContain('tool:tool_result');
    // summary, file-history-snapshot and system lines carry no conversation
    expect(conversation.messages.some((m) => m.text.includes('Auto-compact'))).toBe(false);
    expect(conversation.messages.some((m) => m.text.includes('Fix ESM import error in vitest setup'))).toBe(false);
    const firstResult = conversation.messages.find((m) => m.kind === 'tool_result');
    expect(firstResult).toMatchObject({ tool: 'Bash', is_error: true });
    expect(firstResult?.text).toContain('ERR_MODULE_NOT_FOUND');
    const edit = conversation.messages.find((m) => m.kind === 'tool_use' && m.tool === 'Edit');
    expect(edit?.text).toContain('pool.ts');
  });

  it('accepts tool_result content given as text blocks', () => {
    const line = JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'ok' }] }] },
    });
    expect(readClaudeCode(line).conversation.messages).toEqual([{ role: 'tool', kind: 'tool_result', text: 'ok' }]);
  });

  it('reports a truncated line and keeps every other line', () => {
    const lines = text('claude-code-session.jsonl').trimEnd().split('\n');
    const cut = lines[4]?.slice(0, 120) ?? '';
    const damaged = [...lines.slice(0, 4), cut, ...lines.slice(5)].join('\n');
    const whole = readClaudeCode(text('claude-code-session.jsonl')).conversation.messages.length;
    const { conversation, issues } = readClaudeCode(damaged);
    expect(issues).toEqual([{ kind: 'malformed_line', line: 5, message: expect.stringContaining('not valid JSON') }]);
    expect(conversation.messages.length).toBe(whole - 1);
  });
});

describe('OpenClaw', () => {
  it('reads a session JSONL: toolCall blocks and toolResult messages', () => {
    const { conversation, issues } = readOpenClawSession(text('openclaw-session.jsonl'));
    expect(issues).toEqual([]);
    expect(conversation.source).toBe('openclaw');
    expect(conversation.messages.map((m) => `${m.role}:${m.kind}${m.tool ? `:${m.tool}` : ''}`)).toEqual([
      'user:text',
      'assistant:thinking',
      'assistant:tool_use:exec',
      'tool:tool_result:exec',
      'assistant:tool_use:edit',
      'tool:tool_result:edit',
      'assistant:text',
    ]);
    expect(conversation.messages[3]?.is_error).toBe(true);
  });

  it('reads a daily memory file into one message per section, dropping the bare date title', () => {
    const { conversation } = readOpenClawMemory(text('openclaw/memory/2026-11-19.md'));
    expect(conversation.messages).toHaveLength(3);
    expect(conversation.messages[1]?.text.startsWith('## 10:05 — Postgres backup cron broke')).toBe(true);
    expect(conversation.messages.every((m) => m.role === 'assistant' && m.kind === 'text')).toBe(true);
  });

  it('reads MEMORY.md sections', () => {
    const { conversation } = readOpenClawMemory(text('openclaw/MEMORY.md'));
    expect(conversation.messages.map((m) => m.text.split('\n')[0])).toEqual([
      '## Preferences',
      '### Webhook signature failures behind the proxy',
    ]);
  });
});

describe('plain text', () => {
  it('splits on speaker labels', () => {
    const { conversation } = readPlainText(text('plain-transcript.txt'));
    expect(conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(conversation.messages[0]?.text).toContain('address already in use');
  });

  it('splits unlabelled text into paragraphs', () => {
    const { conversation } = readPlainText('first paragraph\nstill first\n\nsecond\n');
    expect(conversation.messages.map((m) => m.text)).toEqual(['first paragraph\nstill first', 'second']);
  });
});

describe('readTranscriptFile', () => {
  it('sniffs the JSONL dialect and picks the parser by extension', async () => {
    const cc = await readTranscriptFile(fixture('claude-code-session.jsonl'));
    expect(cc.format).toBe('claude-code');
    expect(cc.conversation.messages).toEqual(readClaudeCode(text('claude-code-session.jsonl')).conversation.messages);
    const oc = await readTranscriptFile(fixture('openclaw-session.jsonl'));
    expect(oc.format).toBe('openclaw-session');
    expect(oc.conversation.source).toBe('openclaw');
    const md = await readTranscriptFile(fixture('openclaw/MEMORY.md'));
    expect(md.format).toBe('openclaw-memory');
    const txt = await readTranscriptFile(fixture('plain-transcript.txt'), { highWaterMark: 16 });
    expect(txt.conversation.messages).toEqual(readPlainText(text('plain-transcript.txt')).conversation.messages);
    expect([cc, oc, md, txt].every((r) => r.issues.length === 0)).toBe(true);
  });
});
