import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../src/conversation.js';
import { HeuristicModel } from '../src/model/heuristic.js';
import { renderConversation } from '../src/pipeline/render.js';
import { runPipeline } from '../src/pipeline/run.js';
import { CodexRolloutParser } from '../src/readers/codex.js';
import { readTranscriptFile } from '../src/readers/file.js';
import { parseLines } from '../src/readers/line-parser.js';
import {
  CWD,
  ESM_ERROR,
  PATCH,
  PROMPT,
  RESOLUTION,
  SESSION_ID,
  assistantText,
  esmSession,
  exec,
  line,
  sessionStart,
  userTurn,
  writeRollout,
} from './codex-rollout.js';

const home = () => mkdtempSync(join(tmpdir(), 'codex-home-'));
const kinds = (messages: Message[]) => messages.map((m) => `${m.role}:${m.kind}${m.tool ? `:${m.tool}` : ''}`);

// Codex CLI writes one JSONL rollout per session under $CODEX_HOME/sessions/YYYY/MM/DD. Without a reader for it the
// sniffer found no line type it knew and the session was read as nothing at all.
describe('Codex CLI rollout', () => {
  it('is read as a conversation: the prompt, reasoning, tool calls with their outputs, the answer, each once', async () => {
    const r = await readTranscriptFile(writeRollout(home(), esmSession()));
    expect(r.issues).toEqual([]);
    expect(r.format).toBe('codex');
    expect(r.conversation.source).toBe('codex');
    const messages = r.conversation.messages;
    expect(kinds(messages)).toEqual([
      'user:text',
      'assistant:thinking',
      'assistant:tool_use:exec_command',
      'tool:tool_result:exec_command',
      'assistant:tool_use:apply_patch',
      'tool:tool_result:apply_patch',
      'assistant:tool_use:exec_command',
      'tool:tool_result:exec_command',
      'assistant:text',
    ]);
    // Only what the person typed: not Codex's AGENTS.md, environment or permission messages.
    expect(messages[0]?.text).toBe(PROMPT);
    expect(messages[2]?.text).toBe(JSON.stringify({ cmd: 'npm test 2>&1 | tail -20', workdir: CWD }));
    // The command's output, without the header Codex puts above it (chunk id, wall time, exit code).
    expect(messages[3]).toEqual({
      role: 'tool',
      kind: 'tool_result',
      tool: 'exec_command',
      text: ESM_ERROR,
      is_error: true,
    });
    expect(messages[4]?.text).toBe(PATCH);
    expect(messages[5]).toEqual({
      role: 'tool',
      kind: 'tool_result',
      tool: 'apply_patch',
      text: 'Success. Updated the following files:\nM src/server.ts\n',
    });
    expect(messages[7]?.is_error).toBeUndefined();
    expect(messages[8]?.text).toBe(RESOLUTION);
  });

  it('keeps the session id and cwd of its session_meta line', () => {
    const p = parseLines(new CodexRolloutParser(), esmSession().join('\n')) as CodexRolloutParser;
    expect([p.sessionId, p.cwd]).toEqual([SESSION_ID, CWD]);
  });

  it('drafts the fix from the session, as from a Claude Code one', async () => {
    const r = await readTranscriptFile(writeRollout(home(), esmSession()));
    const result = await runPipeline(r.conversation, { model: new HeuristicModel() });
    expect(result.errors).toEqual([]);
    expect(result.source).toBe('codex');
    expect(result.learnings).toHaveLength(1);
    expect(result.learnings[0]?.title).toContain('ERR_MODULE_NOT_FOUND');
    expect(result.learnings[0]?.task_context).toBe(PROMPT);
  });

  it('reads a 2025 rollout: a bare session-meta first line, then bare response items', async () => {
    const legacy = [
      { id: SESSION_ID, timestamp: '2025-07-14T09:12:40.118Z', instructions: 'Run npm test before committing.' },
      { record_type: 'state' },
      {
        type: 'message',
        role: 'user',
        content: [
          {
            type: 'input_text',
            text: '<user_instructions>\n\nRun npm test before committing.\n\n</user_instructions>',
          },
        ],
      },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${CWD}</cwd>\n</environment_context>` }],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPT }] },
      {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', 'npm test'], workdir: CWD }),
        call_id: 'call_a',
      },
      {
        type: 'function_call_output',
        call_id: 'call_a',
        output: JSON.stringify({ output: ESM_ERROR, metadata: { exit_code: 1, duration_seconds: 1.4 } }),
      },
      { type: 'local_shell_call', call_id: 'call_b', status: 'completed', action: { type: 'exec', command: ['ls'] } },
      { type: 'function_call_output', call_id: 'call_b', output: 'src\ntest' },
      { record_type: 'state', previous_response_id: 'resp_1' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: RESOLUTION }] },
    ].map((l) => JSON.stringify(l));
    const r = await readTranscriptFile(writeRollout(home(), legacy));
    expect(r.issues).toEqual([]);
    expect(r.format).toBe('codex');
    expect(kinds(r.conversation.messages)).toEqual([
      'user:text',
      'assistant:tool_use:shell',
      'tool:tool_result:shell',
      'assistant:tool_use:local_shell',
      'tool:tool_result:local_shell',
      'assistant:text',
    ]);
    expect(r.conversation.messages[0]?.text).toBe(PROMPT);
    expect(r.conversation.messages[2]).toEqual({
      role: 'tool',
      kind: 'tool_result',
      tool: 'shell',
      text: ESM_ERROR,
      is_error: true,
    });
    const p = parseLines(new CodexRolloutParser(), legacy.join('\n')) as CodexRolloutParser;
    expect([p.sessionId, p.cwd]).toEqual([SESSION_ID, null]);
  });

  it("drafts a 2025 rollout's fix from its shell call's argv as the command run, not as JSON", async () => {
    const shell = (callId: string, script: string, exitCode: number, output: string) => [
      {
        type: 'function_call',
        name: 'shell',
        arguments: JSON.stringify({ command: ['bash', '-lc', script], workdir: CWD }),
        call_id: callId,
      },
      {
        type: 'function_call_output',
        call_id: callId,
        output: JSON.stringify({ output, metadata: { exit_code: exitCode, duration_seconds: 1.1 } }),
      },
    ];
    const fix = `sed -i "s#'./db/pool'#'./db/pool.js'#" src/server.ts`;
    const legacy = [
      { id: SESSION_ID, timestamp: '2025-07-14T09:12:40.118Z' },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPT }] },
      ...shell('call_a', 'npm test', 1, ESM_ERROR),
      ...shell('call_b', fix, 0, ''),
      ...shell('call_c', 'npm test', 0, 'Test Files  12 passed (12)'),
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: RESOLUTION }] },
    ].map((l) => JSON.stringify(l));
    const r = await readTranscriptFile(writeRollout(home(), legacy));
    const result = await runPipeline(r.conversation, { model: new HeuristicModel() });
    expect(result.learnings).toHaveLength(1);
    expect(result.learnings[0]?.body).toContain(`Fix: run \`${fix}\`.`);
  });

  it('skips the user_message events of versions that sent AGENTS.md and the environment as events too', async () => {
    const lines = [
      ...sessionStart(),
      line('event_msg', {
        type: 'user_message',
        message: '<user_instructions>x</user_instructions>',
        kind: 'user_instructions',
      }),
      line('event_msg', {
        type: 'user_message',
        message: '<environment_context>y</environment_context>',
        kind: 'environment_context',
      }),
      line('event_msg', { type: 'user_message', message: PROMPT, kind: 'plain' }),
      ...assistantText(RESOLUTION),
    ];
    const r = await readTranscriptFile(writeRollout(home(), lines));
    expect(r.conversation.messages.map((m) => m.text)).toEqual([PROMPT, RESOLUTION]);
  });

  it('reports a malformed line and each unknown line type once, and reads the rest', async () => {
    const lines = esmSession();
    lines.splice(8, 0, '{"timestamp":"2026-11-27T10:00:09.000Z","type":"response_item","payload":{"type":"mess');
    lines.push(line('world_state', { files: 3 }), line('world_state', { files: 4 }));
    lines.push(line('response_item', { type: 'hologram_call', call_id: 'h' }));
    const r = await readTranscriptFile(writeRollout(home(), lines));
    expect(r.issues).toEqual([
      { kind: 'malformed_line', line: 9, message: 'line is not valid JSON (truncated or corrupt)' },
      {
        kind: 'malformed_line',
        line: lines.length - 2,
        message: '2 lines of unknown Codex type "world_state" skipped',
      },
      { kind: 'malformed_line', line: lines.length, message: '1 line of unknown Codex type "hologram_call" skipped' },
    ]);
    expect(r.conversation.messages).toEqual(
      (await readTranscriptFile(writeRollout(home(), esmSession()))).conversation.messages,
    );
  });

  it('cuts a long tool output the way a Claude Code one is cut, and drops one longer than a line', async () => {
    const long = `${'npm warn deprecated glob@7.2.3\n'.repeat(1000)}${ESM_ERROR}`;
    const lines = [
      ...sessionStart(),
      ...userTurn(PROMPT),
      ...exec('call_huge', 'cat build.log', 0, 'x'.repeat(1_200_000)),
      ...exec('call_long', 'npm test', 1, long),
      ...assistantText(RESOLUTION),
    ];
    const r = await readTranscriptFile(writeRollout(home(), lines));
    // The 1.2 MB output's line is over the per-line cap: dropped and reported, its call kept, the session read on.
    expect(r.issues).toEqual([{ kind: 'malformed_line', line: 9, message: 'line longer than 1000000 chars dropped' }]);
    expect(kinds(r.conversation.messages)).toEqual([
      'user:text',
      'assistant:tool_use:exec_command',
      'assistant:tool_use:exec_command',
      'tool:tool_result:exec_command',
      'assistant:text',
    ]);
    // A long output is read whole and clipped to its head and tail where the pipeline renders it.
    expect(r.conversation.messages[3]?.text).toBe(long);
    const rendered = renderConversation(r.conversation).text;
    expect(rendered).toMatch(/\[\.\.\. \d+ chars omitted \.\.\.\]/);
    expect(rendered).toContain(ESM_ERROR);
    expect(rendered.length).toBeLessThan(5000);
  });

  it('keeps a prompt sent with a pasted screenshot: the image data URL does not make its line too long', async () => {
    const image = `data:image/png;base64,${Buffer.alloc(900_000, 7).toString('base64')}`;
    const lines = [
      ...sessionStart(),
      line('response_item', {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: PROMPT },
          { type: 'input_image', image_url: image },
        ],
      }),
      line('event_msg', { type: 'user_message', message: PROMPT, images: [image] }),
      ...assistantText(RESOLUTION),
    ];
    const r = await readTranscriptFile(writeRollout(home(), lines));
    expect(r.issues).toEqual([]);
    expect(r.conversation.messages.map((m) => m.text)).toEqual([PROMPT, RESOLUTION]);
  });

  it('is read by name with format codex whatever the file is called', async () => {
    const path = join(home(), 'session.log');
    writeFileSync(path, `${esmSession().join('\n')}\n`);
    const r = await readTranscriptFile(path, { format: 'codex' });
    expect([r.format, r.conversation.source, r.conversation.messages.length]).toEqual(['codex', 'codex', 9]);
  });
});
