// `axle extract` on the session files Codex CLI writes under $CODEX_HOME/sessions: read as a Codex session (not as
// unknown JSONL, which yielded no text at all), drafted like any transcript, and scrubbed before anything is shown.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PROMPT,
  assistantText,
  esmSession,
  exec,
  sessionStart,
  userTurn,
  writeRollout,
} from '../../extractor/test/codex-rollout.js';
import { axle, tempHome } from './helpers.js';

interface Shown {
  drafts: Array<{ title: string; body: string; task_context: string }>;
  errors: Array<Record<string, unknown>>;
}

describe('axle extract on a Codex CLI rollout', () => {
  it('shows the draft the session makes, with the prompt as its context', async () => {
    const home = tempHome();
    const file = writeRollout(path.join(home, '.codex'), esmSession());
    const r = await axle(['extract', file, '--dry-run', '--json', '--client', 'codex'], { home });
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout) as Shown;
    expect(shown.errors).toEqual([]);
    expect(shown.drafts).toHaveLength(1);
    expect(shown.drafts[0]?.title).toContain('ERR_MODULE_NOT_FOUND');
    expect(shown.drafts[0]?.task_context).toBe(PROMPT);
  });

  it('says which line it skipped and drafts from the rest', async () => {
    const home = tempHome();
    const lines = esmSession();
    lines.splice(6, 0, '{"timestamp":"2026-11-27T10:00:06.000Z","type":"event_msg","payload":{"type":"user_mes');
    const file = writeRollout(path.join(home, '.codex'), lines);
    const r = await axle(['extract', file, '--dry-run'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('skipped: line is not valid JSON (truncated or corrupt)');
    expect(r.stdout).toContain('ERR_MODULE_NOT_FOUND');
    expect(r.stdout).toContain(PROMPT);
  });

  it('scrubs a token that a tool output printed out of every draft it shows', async () => {
    const token = 'ghp_R8kXw2Lq9Vt4Zp7Nc1Hs6Jd3Fb5Gm0Ya2Qe';
    const lines = [
      ...sessionStart(),
      ...userTurn('`git push` from the release script fails since the repository moved to the acme org. Fix it.'),
      ...exec(
        'call_Push01',
        'git push origin main',
        128,
        `remote: Invalid username or token.\nfatal: Authentication failed for 'https://dev:${token}@github.com/ledger/ledger-api.git/'`,
      ),
      ...exec('call_Url02', 'git remote set-url origin git@github.com:acme/ledger-api.git', 0, ''),
      ...exec(
        'call_Push03',
        'git push origin main',
        0,
        'To github.com:acme/ledger-api.git\n   4f1c2a9..8e0d3b4  main -> main',
      ),
      ...assistantText(
        'Fixed. The remote still pointed at the old organisation with a token in the URL; it must use the new ' +
          'acme remote over SSH instead, because the old URL no longer exists.',
      ),
    ];
    const home = tempHome();
    const file = writeRollout(path.join(home, '.codex'), lines);
    const json = await axle(['extract', file, '--dry-run', '--json'], { home });
    expect(json.code, json.stderr).toBe(0);
    const shown = JSON.parse(json.stdout) as Shown;
    expect(shown.drafts.length).toBeGreaterThan(0);
    expect(shown.drafts[0]?.title).toMatch(/Authentication failed for '\[REDACTED:[a-z_]+\]/);
    const text = await axle(['extract', file, '--dry-run'], { home });
    for (const out of [json.stdout, json.stderr, text.stdout, text.stderr])
      expect(out).not.toContain(token.slice(4, 20));
  });
});
