#!/usr/bin/env node
// Session-end hook for Claude Code, Gemini CLI and other clients: `axle-hook <client>` with the hook's
// JSON on stdin. It queues {session_id, transcript_path, cwd, client} in ~/.axle/queue/sessions.jsonl,
// starts the extraction runner detached and exits 0 at once. It never blocks or fails the client:
// every error ends in exit 0, stdin is read with a time limit, and the kill switch stops it first.
// Plain JavaScript with node: built-ins only, so it starts fast; not oclif, not npx.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const STDIN_TIMEOUT_MS = 500;
const home = join(homedir(), '.axle');
const client = /^[a-z0-9-]{1,40}$/.test(process.argv[2] ?? '') ? process.argv[2] : 'unknown';

function log(message) {
  try {
    mkdirSync(join(home, 'logs'), { recursive: true });
    appendFileSync(
      join(home, 'logs', 'hook.log'),
      `${JSON.stringify({ ts: new Date().toISOString(), client, message })}\n`,
    );
  } catch {
    // nowhere to log: still exit 0
  }
}

/** stdin up to its end or the time limit, whichever comes first. */
function readStdin() {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve('');
    const chunks = [];
    const done = () => {
      clearTimeout(timer);
      process.stdin.pause();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, STDIN_TIMEOUT_MS);
    process.stdin.on('data', (c) => chunks.push(c));
    process.stdin.on('end', done);
    process.stdin.on('error', done);
  });
}

async function main() {
  if (existsSync(join(home, 'DISABLED'))) return;
  let input;
  try {
    input = JSON.parse(await readStdin());
  } catch {
    return log('stdin was not JSON; nothing queued');
  }
  const str = (v) => (typeof v === 'string' && v.length <= 4096 ? v : null);
  const entry = {
    session_id: str(input?.session_id),
    transcript_path: str(input?.transcript_path),
    cwd: str(input?.cwd),
    client,
  };
  if (!entry.transcript_path) return log('no transcript_path in the hook input; nothing queued');
  mkdirSync(join(home, 'queue'), { recursive: true });
  // One short append per session: lines from hooks firing at once do not interleave. It starts with a line break
  // (blank lines are skipped): a line an earlier hook could write only in part (a full disk) does not swallow it.
  appendFileSync(join(home, 'queue', 'sessions.jsonl'), `\n${JSON.stringify(entry)}\n`);
  const runner = fileURLToPath(new URL('../dist/runner/main.js', import.meta.url));
  const child = spawn(process.execPath, [runner], { detached: true, stdio: 'ignore', windowsHide: true });
  child.on('error', (err) => log(`runner did not start: ${err.message}`));
  child.unref();
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`hook failed: ${err?.message ?? err}`);
    process.exit(0);
  },
);
