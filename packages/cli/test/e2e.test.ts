// The whole path a contributor takes: axle setup (device login approved on the /device page), a Claude Code
// session ending (its transcript handed to axle-hook exactly as the installed hook runs it), the drafts in the
// private review queue, `axle review approve`, the platform's first-publication review, and the learning
// found by POST /knowledge.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, launchChromium, MISSING_CHROMIUM } from '../../../test/support/chromium.js';
import { linkIn } from '../../../test/support/identity.js';
import { CLIENT_FILES, writeClientFiles } from './fixtures.js';
import {
  approveDevice,
  axle,
  axleApprovingDevice,
  cliEnv,
  type ServerProcess,
  type Smtp,
  startMailedServer,
  tempHome,
  TRANSCRIPT,
} from './helpers.js';

const ADMIN_TOKEN = 'e2e-admin-token-0123456789abcdef';
const chromiumPath = findChromium();

/** Approves the code the way a person does, in headless Chromium: a sign-in link asked for on /device, then Approve. */
async function approveInBrowser(server: string, smtp: Smtp, email: string, userCode: string): Promise<void> {
  const browser = await launchChromium(chromiumPath!);
  try {
    const page = await browser.newPage();
    await page.goto(`${server}/device?user_code=${userCode}`);
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await page.goto(linkIn(smtp.lastTo(email)!).href);
    await page.getByRole('heading', { name: 'Approve this device?' }).waitFor();
    expect(await page.getByTestId('user-code').textContent()).toBe(userCode);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
  } finally {
    await browser.close();
  }
}

/** Runs a hook command line as the client does (through the shell), with the hook's JSON on stdin. */
function runHookCommand(command: string, home: string, input: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = execFile('/bin/sh', ['-c', command], { env: cliEnv(home) }, () => undefined);
    child.once('exit', (code) => resolve(code));
    child.stdin!.end(input);
  });
}

describe('end to end: setup, a session ends, review, publication, search', () => {
  let smtp: Smtp;
  let server: ServerProcess;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ smtp, server, stop } = await startMailedServer({ AXLE_ADMIN_TOKEN: ADMIN_TOKEN }));
  });
  afterAll(() => stop?.());

  it('goes from axle setup to a learning POST /knowledge finds', async () => {
    if (!chromiumPath) console.warn(`${MISSING_CHROMIUM}; the device code is approved over HTTP instead`);
    const approve = chromiumPath ? approveInBrowser : approveDevice;
    const home = tempHome();
    writeClientFiles(home);

    // 1. setup, signed in by device code.
    const setup = await axleApprovingDevice(
      ['setup', '--server', server.url, '--yes', '--enable-extraction', '--no-browser'],
      { home, server: server.url, smtp, email: 'e2e@example.com', approve },
    );
    expect(setup.code, setup.stderr).toBe(0);
    const { api_key: key } = JSON.parse(fs.readFileSync(path.join(home, '.axle/config.json'), 'utf8'));
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };

    // 2. A Claude Code session ends: its SessionEnd hook runs with the transcript path on stdin.
    const transcript = path.join(home, '.claude/projects/-home-dev-api/5b0c3e2a.jsonl');
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    fs.copyFileSync(TRANSCRIPT, transcript);
    const settings = JSON.parse(fs.readFileSync(path.join(home, CLIENT_FILES['claude-code-settings']!.file), 'utf8'));
    const command = settings.hooks.SessionEnd[0].hooks[0].command as string;
    const input = JSON.stringify({
      session_id: '5b0c3e2a',
      transcript_path: transcript,
      cwd: '/home/dev/api',
      hook_event_name: 'SessionEnd',
      reason: 'exit',
    });
    expect(await runHookCommand(command, home, input)).toBe(0);

    // 3. The draft reaches the private review queue (the runner is detached; watch the queue).
    let pending: {
      pending_count: number;
      learnings: Array<{ id: string; title: string; tags: string[]; status: string }>;
    } = { pending_count: 0, learnings: [] };
    for (const until = Date.now() + 30_000; pending.pending_count === 0 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 100));
      pending = await (await fetch(`${server.url}/account/pending`, { headers })).json();
    }
    expect(pending.pending_count).toBe(1);
    const [draft] = pending.learnings;
    expect(draft!.title).toMatch(/ERR_MODULE_NOT_FOUND/);
    expect(draft!.tags).toContain('source:claude-code');
    // Unsearchable while held.
    const before = await (
      await fetch(`${server.url}/knowledge`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: 'ERR_MODULE_NOT_FOUND db pool' }),
      })
    ).json();
    expect(before.results.map((r: { id: string }) => r.id)).not.toContain(draft!.id);

    // 4. axle review shows it and approves it; a first publication also waits for the platform's review.
    const summary = JSON.parse((await axle(['review', '--json'], { home })).stdout);
    expect(summary.pending_count).toBe(1);
    const approved = await axle(['review', 'approve', draft!.id, '--json'], { home });
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout).results).toEqual([expect.objectContaining({ id: draft!.id, ok: true })]);
    const platform = await fetch(`${server.url}/admin/review/${draft!.id}/approve`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(platform.status).toBe(200);

    // 5. Published: POST /knowledge finds it.
    const found = await (
      await fetch(`${server.url}/knowledge`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: 'ERR_MODULE_NOT_FOUND db pool' }),
      })
    ).json();
    expect(found.results.map((r: { id: string }) => r.id)).toContain(draft!.id);
  }, 120_000);
});
