import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  captureHome,
  cliEnv,
  HOOK_BIN,
  hookInput,
  logLines,
  mintKey,
  type ServerProcess,
  type Smtp,
  startMailedServer,
  writeAxleConfig,
} from './helpers.js';

/** Runs axle-hook as a client does: JSON on stdin (left open when `input` is null). */
function runHook(home: string, client: string, input: string | null): Promise<{ code: number | null }> {
  const child = spawn(process.execPath, [HOOK_BIN, client], { env: cliEnv(home), stdio: ['pipe', 'ignore', 'ignore'] });
  if (input !== null) child.stdin.end(input);
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code })));
}

/** The runner's log entries once a pass has been logged (the runner is detached; this watches its log). */
async function runnerPasses(home: string, count = 1, timeoutMs = 30_000): Promise<Array<Record<string, unknown>>> {
  const file = path.join(home, '.axle/logs/runner.log');
  const until = Date.now() + timeoutMs;
  for (;;) {
    const lines = logLines(file);
    if (lines.filter((l) => l.event === 'pass').length >= count) return lines;
    if (Date.now() > until) throw new Error(`no runner pass logged: ${JSON.stringify(lines)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('axle-hook and the runner', () => {
  let smtp: Smtp;
  let server: ServerProcess;
  let stop: () => Promise<void>;
  let apiKey: string;
  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailedServer());
    apiKey = (await mintKey(server.url, smtp, 'hook@example.com')).api_key;
  });
  afterAll(() => stop?.());

  it('queues the session, exits 0 at once, and the detached runner extracts it and sends the draft to POST /learn', async () => {
    const { home, transcript } = captureHome(server.url, apiKey);
    const hook = await runHook(home, 'claude-code', hookInput(transcript));
    expect(hook.code).toBe(0);
    const log = await runnerPasses(home);
    expect(log.find((l) => l.event === 'extracted')).toMatchObject({
      file: transcript,
      client: 'claude-code',
      drafts: 1,
    });
    expect(log.find((l) => l.event === 'submitted')).toMatchObject({ pending: 0 });
    // The draft left the queue (sent, or refused by the server for good) and carries only draft fields.
    const queue = path.join(home, '.axle/queue');
    expect(fs.readdirSync(path.join(queue, 'pending')).filter((f) => f.endsWith('.json'))).toEqual([]);
    const settled = ['done', 'rejected'].flatMap((s) =>
      fs.existsSync(path.join(queue, s)) ? fs.readdirSync(path.join(queue, s)) : [],
    );
    expect(settled).toHaveLength(1);
    // The hook queue was taken and nothing is left for the next runner.
    expect(fs.readdirSync(queue).filter((f) => f.startsWith('sessions.jsonl'))).toEqual([]);

    // The same session again: its content is unchanged, so nothing new is extracted.
    await runHook(home, 'claude-code', hookInput(transcript));
    const second = await runnerPasses(home, 2);
    expect(second.filter((l) => l.event === 'extracted')).toHaveLength(1);
  });

  it('does nothing while the kill switch is on, and never fails on bad or missing input', async () => {
    const { home, transcript } = captureHome(server.url, apiKey);
    fs.writeFileSync(path.join(home, '.axle/DISABLED'), '');
    expect((await runHook(home, 'claude-code', hookInput(transcript))).code).toBe(0);
    expect(fs.existsSync(path.join(home, '.axle/queue'))).toBe(false);
    fs.rmSync(path.join(home, '.axle/DISABLED'));

    expect((await runHook(home, 'claude-code', 'not json {')).code).toBe(0);
    expect((await runHook(home, 'gemini-cli', '{"session_id": 7}')).code).toBe(0);
    // stdin that never ends: the hook gives up reading after its time limit and still exits 0 (one that waited for
    // the end of stdin would never exit; how long it takes is not timed here: that would fail on a loaded machine).
    const open = await runHook(home, 'claude-code', null);
    expect(open.code).toBe(0);
    expect(fs.existsSync(path.join(home, '.axle/queue'))).toBe(false);
    const hookLog = fs
      .readFileSync(path.join(home, '.axle/logs/hook.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).message);
    expect(hookLog).toEqual([
      'stdin was not JSON; nothing queued',
      'no transcript_path in the hook input; nothing queued',
      'stdin was not JSON; nothing queued',
    ]);
  });

  it('picks up a finished session whose hook never fired, and skips a malformed queue line with a log entry', async () => {
    const { home, transcript } = captureHome(server.url, apiKey);
    // Finished twenty minutes ago, after capture was switched on; its SessionEnd hook was missed.
    const old = new Date(Date.now() - 20 * 60_000);
    fs.utimesSync(transcript, old, old);
    fs.mkdirSync(path.join(home, '.axle/queue'), { recursive: true });
    fs.writeFileSync(path.join(home, '.axle/queue/sessions.jsonl'), '{"broken\n');
    const other = path.join(home, 'gemini-chat.json');
    fs.writeFileSync(other, JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }));
    expect((await runHook(home, 'gemini-cli', JSON.stringify({ session_id: 'g1', transcript_path: other }))).code).toBe(
      0,
    );
    const log = await runnerPasses(home);
    expect(log.find((l) => l.event === 'skipped_line')).toMatchObject({ line: 1, reason: 'not JSON' });
    expect(log.find((l) => l.event === 'pass')).toMatchObject({ sessions: 1, missed: 1, extracted: 2 });
    expect(log.filter((l) => l.event === 'extracted').map((l) => [l.client, l.file])).toEqual([
      ['gemini-cli', other],
      ['claude-code', transcript],
    ]);
  });

  it('drops queued sessions unread once capture is off', async () => {
    const { home, transcript } = captureHome(server.url, apiKey);
    writeAxleConfig(home, {
      server: server.url,
      api_key: apiKey,
      capture: { enabled: false, since: new Date().toISOString() },
    });
    expect((await runHook(home, 'claude-code', hookInput(transcript))).code).toBe(0);
    const log = await runnerPasses(home);
    expect(log.find((l) => l.event === 'capture_off')).toMatchObject({ dropped: 1 });
    expect(log.some((l) => l.event === 'extracted')).toBe(false);
  });
});

// Found by attacking the hook on a full disk: a line it could write only in part (ENOSPC, a file size limit) was left
// without its line break, and the next session's line was appended to it, so that session was lost as well (one
// malformed line, skipped by the runner), though it was handed over with room on the disk again.
describe('axle-hook after a line it could only write in part', () => {
  it("loses no later session: the next session's line starts on a line of its own", async () => {
    const { tempHome } = await import('./helpers.js');
    const { takeSessions } = await import('../src/runner/sessions.js');
    const home = tempHome();
    const queue = path.join(home, '.axle/queue');
    fs.mkdirSync(queue, { recursive: true });
    // A runner at work (this process) keeps the hooks' runners from taking the queue while the test reads it.
    fs.writeFileSync(path.join(home, '.axle/runner.lock'), String(process.pid));
    const sessions = path.join(queue, 'sessions.jsonl');
    const first = { session_id: 'a', transcript_path: '/t/first.jsonl', cwd: null, client: 'claude-code' };
    const pad = 1000 - `${JSON.stringify(first)}\n`.length;
    first.transcript_path = `/t/first${'x'.repeat(pad)}.jsonl`;
    fs.writeFileSync(sessions, `${JSON.stringify(first)}\n`);
    expect(fs.statSync(sessions).size).toBe(1000);

    // A 1 KiB file size limit (bash counts `ulimit -f` in KiB) fails the append after 24 bytes, as a full disk does.
    const limited = spawn('bash', ['-c', 'ulimit -f 1; exec "$0" "$@"', process.execPath, HOOK_BIN, 'gemini-cli'], {
      env: cliEnv(home),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    limited.stdin!.end(hookInput('/t/second.json'));
    expect(await new Promise((r) => limited.once('exit', r))).toBe(0);
    expect(fs.statSync(sessions).size).toBe(1024);

    expect((await runHook(home, 'gemini-cli', hookInput('/t/third.json'))).code).toBe(0);
    const taken = await takeSessions(sessions, Date.now());
    expect(taken.sessions.map((s) => s.transcript_path)).toEqual([first.transcript_path, '/t/third.json']);
    expect(taken.skipped).toHaveLength(1);
  });
});
