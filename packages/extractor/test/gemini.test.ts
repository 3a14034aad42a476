import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readTranscriptFile } from '../src/readers/file.js';

const fixture = fileURLToPath(new URL('./fixtures/gemini-cli-session.json', import.meta.url));

// Gemini CLI's SessionEnd hook hands over ~/.gemini/tmp/<project>/chats/session-*.json: one JSON document
// ({sessionId, messages: [{type: user|gemini|info|error, content, thoughts, toolCalls}]}), rewritten whole on
// every turn.
describe('Gemini CLI session file', () => {
  it('is read as a conversation with roles, thoughts and tool calls, not as one plain-text paragraph', async () => {
    const r = await readTranscriptFile(fixture);
    expect(r.issues).toEqual([]);
    expect(r.format).toBe('gemini-cli');
    expect(r.conversation.source).toBe('gemini-cli');
    const kinds = r.conversation.messages.map((m) => `${m.role}:${m.kind}${m.tool ? `:${m.tool}` : ''}`);
    expect(kinds).toEqual([
      'user:text',
      'assistant:thinking',
      'assistant:text',
      'assistant:tool_use:run_shell_command',
      'tool:tool_result:run_shell_command',
      'assistant:text',
    ]);
    const result = r.conversation.messages[4];
    expect(result).toMatchObject({ is_error: true });
    expect(result?.text).toContain('ERR_MODULE_NOT_FOUND');
    expect(r.conversation.messages[3]?.text).toBe('{"command":"npx vitest run"}');
    expect(r.conversation.messages.some((m) => m.text.includes('projectHash'))).toBe(false);
  });

  it('accepts content given as parts, skips info and error records, and keeps a tool output longer than a line cap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gemini-'));
    const file = join(dir, 'session-2026-11-27T10-00-5f0c7a2e.json');
    const long = 'x'.repeat(2_000_000);
    const doc = {
      sessionId: 's',
      messages: [
        { id: '1', type: 'user', content: [{ text: 'why does the build fail?' }] },
        { id: '2', type: 'info', content: 'Request cancelled.' },
        { id: '3', type: 'error', content: 'API quota exceeded' },
        {
          id: '4',
          type: 'gemini',
          content: '',
          toolCalls: [{ id: 'c', name: 'read_file', args: { path: 'a.log' }, status: 'success', resultDisplay: long }],
        },
        { id: '5', type: 'future_kind', content: 'ignored' },
      ],
    };
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const r = await readTranscriptFile(file, { maxChars: 3_000_000 });
    expect(r.issues).toEqual([]);
    expect(r.conversation.messages.map((m) => `${m.role}:${m.kind}`)).toEqual([
      'user:text',
      'assistant:tool_use',
      'tool:tool_result',
    ]);
    expect(r.conversation.messages[0]?.text).toBe('why does the build fail?');
    expect(r.conversation.messages[2]?.text.length).toBe(long.length);
  });

  it('reports a half-written file instead of reading its text as a paragraph', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gemini-'));
    const file = join(dir, 'session-half.json');
    const text = readFileSync(fixture, 'utf8');
    writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
    const r = await readTranscriptFile(file);
    expect(r.conversation.messages).toEqual([]);
    expect(r.issues.map((i) => i.kind)).toEqual(['malformed_line']);
  });
});
