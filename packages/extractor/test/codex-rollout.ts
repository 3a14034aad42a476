// Codex CLI rollout lines as Codex writes them (codex-rs/protocol: RolloutLine = {timestamp, type, payload}; the
// payload of a response_item is a ResponseItem, of an event_msg an EventMsg), for the reader and CLI tests.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SESSION_ID = '0199a213-81c0-7800-8aa1-bbab2a035a53';
export const CWD = '/home/dev/projects/ledger-api';
export const PROMPT =
  'Running `npm test` in ledger-api fails right away after I switched the package to "type": "module". Can you fix it?';
export const RESOLUTION =
  "Fixed. The root cause was a missing .js extension in the ESM import: Node's ESM resolver does not add extensions, " +
  'so `./db/pool` must be written `./db/pool.js`; tsc maps it to the .ts source.';

let second = 0;
const stamp = () => new Date(Date.UTC(2026, 10, 27, 10, 0, second++)).toISOString();

export const line = (type: string, payload: Record<string, unknown>): string =>
  JSON.stringify({ timestamp: stamp(), type, payload });
const item = (payload: Record<string, unknown>) => line('response_item', payload);
const event = (payload: Record<string, unknown>) => line('event_msg', payload);

/** What Codex writes before the first prompt: the session meta, its instructions and the environment. */
export function sessionStart(): string[] {
  return [
    line('session_meta', {
      id: SESSION_ID,
      timestamp: stamp(),
      cwd: CWD,
      originator: 'codex_cli_rs',
      cli_version: '0.98.0',
      source: 'cli',
      model_provider: 'openai',
      git: { commit_hash: '4f1c2a9e0d3b4c559a612b7e8f0c1d22aa00bb11', branch: 'main' },
    }),
    item({
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: '<permissions instructions>Filesystem sandboxing: workspace-write.' }],
    }),
    item({
      type: 'message',
      role: 'user',
      content: [
        {
          type: 'input_text',
          text: `# AGENTS.md instructions for ${CWD}\n\n<INSTRUCTIONS>\nRun npm test before committing.\n</INSTRUCTIONS>`,
        },
      ],
    }),
    item({
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${CWD}</cwd>\n</environment_context>` }],
    }),
    line('turn_context', { cwd: CWD, approval_policy: 'on-request', model: 'gpt-5-codex', summary: 'auto' }),
  ];
}

/** A prompt: the user response item and the user_message event Codex records with it. */
export const userTurn = (text: string): string[] => [
  item({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] }),
  event({ type: 'user_message', message: text, images: [], local_images: [], text_elements: [] }),
];

/** Assistant text: the agent_message event and the response item holding the same text. */
export const assistantText = (text: string): string[] => [
  event({ type: 'agent_message', message: text }),
  item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }),
];

export const reasoning = (text: string): string[] => [
  item({ type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null, encrypted_content: 'gAAAAB' }),
  event({ type: 'agent_reasoning', text }),
];

/** An `exec_command` call and its output, with the header Codex's unified exec tool puts above the output. */
export const exec = (callId: string, cmd: string, exitCode: number, output: string): string[] => [
  item({
    type: 'function_call',
    name: 'exec_command',
    arguments: JSON.stringify({ cmd, workdir: CWD }),
    call_id: callId,
  }),
  item({
    type: 'function_call_output',
    call_id: callId,
    output: `Chunk ID: ${callId.slice(-4)}\nWall time: 1.2040 seconds\nProcess exited with code ${exitCode}\nOutput:\n${output}`,
  }),
  event({ type: 'token_count', info: { total_token_usage: { input_tokens: 5120, output_tokens: 210 } } }),
];

/** An `apply_patch` call (a freeform custom tool) and its output. */
export const applyPatch = (callId: string, patch: string): string[] => [
  item({ type: 'custom_tool_call', status: 'completed', call_id: callId, name: 'apply_patch', input: patch }),
  item({
    type: 'custom_tool_call_output',
    call_id: callId,
    output: JSON.stringify({
      output: 'Success. Updated the following files:\nM src/server.ts\n',
      metadata: { exit_code: 0, duration_seconds: 0 },
    }),
  }),
];

export const ESM_ERROR =
  "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/home/dev/projects/ledger-api/src/db/pool' imported from " +
  '/home/dev/projects/ledger-api/src/server.ts';
export const PATCH =
  "*** Begin Patch\n*** Update File: src/server.ts\n@@\n-import { pool } from './db/pool';\n+import { pool } from './db/pool.js';\n*** End Patch";

/** A whole session as Codex writes it: an ESM import error, the patch that fixes it, the passing re-run. */
export function esmSession(): string[] {
  return [
    ...sessionStart(),
    ...userTurn(PROMPT),
    line('event_msg', { type: 'task_started', model_context_window: 272000 }),
    ...reasoning('**Running the tests**\n\nThe package switched to ESM; run the suite to see the exact error.'),
    ...exec('call_RunTests01', 'npm test 2>&1 | tail -20', 1, ESM_ERROR),
    ...applyPatch('call_Patch02', PATCH),
    ...exec('call_ReRun03', 'npm test', 0, 'Test Files  12 passed (12)\n     Tests  48 passed (48)'),
    ...assistantText(RESOLUTION),
    line('event_msg', { type: 'task_complete', last_agent_message: RESOLUTION }),
  ];
}

/** Writes a rollout where Codex keeps it: `<codexHome>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`. */
export function writeRollout(codexHome: string, lines: string[]): string {
  const dir = join(codexHome, 'sessions', '2026', '11', '27');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `rollout-2026-11-27T10-00-00-${SESSION_ID}.jsonl`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
