// A transcript is partly other people's text (pages and files an agent read, command output): what the extractor
// makes of it is shown before anyone says yes to sending it, and nothing in it may hide from that look.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { axle, TRANSCRIPT, tempHome } from './helpers.js';

/** What a terminal would act on or reorder: C0/C1 controls (ESC starts escape sequences) and bidi formatting. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const HIDDEN = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** Conceal (SGR 8) around a payload, then a window title: JSON escapes, as a transcript line holds them. */
const CONCEALED = '\\u001b[8mHIDDEN-PAYLOAD\\u001b[0m\\u001b]0;pwned\\u0007\\u202e';

describe('axle extract on a transcript carrying terminal escape sequences', () => {
  it('shows the drafts, and hands on the drafts it would send, without them', async () => {
    const home = tempHome();
    const file = path.join(home, 'session.jsonl');
    const text = fs
      .readFileSync(TRANSCRIPT, 'utf8')
      .replace('Cannot find module', `Cannot find${CONCEALED} module`)
      .replace('Fixed. The root cause', `Fixed.${CONCEALED} The root cause`);
    fs.writeFileSync(file, text);

    const shown = await axle(['extract', file, '--dry-run'], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('HIDDEN-PAYLOAD');
    expect(shown.stdout + shown.stderr).not.toMatch(HIDDEN);

    const json = await axle(['extract', file, '--dry-run', '--json'], { home });
    const { drafts } = JSON.parse(json.stdout) as { drafts: Array<Record<string, unknown>> };
    expect(drafts.length).toBeGreaterThan(0);
    expect(JSON.stringify(drafts)).toContain('HIDDEN-PAYLOAD');
    for (const d of drafts)
      for (const v of Object.values(d)) expect(JSON.stringify(v)).not.toMatch(/\\u00(1b|07)|\u202e/i);
  });
});

describe('axle extract shows every text field it would send', () => {
  it('prints the task context (the person’s own prompt) before asking, not only the title, tags and body', async () => {
    const home = tempHome();
    const json = await axle(['extract', TRANSCRIPT.pathname, '--dry-run', '--json'], { home });
    const { drafts } = JSON.parse(json.stdout) as { drafts: Array<{ task_context: string }> };
    expect(drafts.length).toBeGreaterThan(0);
    const shown = await axle(['extract', TRANSCRIPT.pathname, '--dry-run'], { home });
    expect(shown.code, shown.stderr).toBe(0);
    for (const d of drafts) {
      expect(d.task_context.length).toBeGreaterThan(0);
      expect(shown.stdout).toContain(d.task_context);
    }
  });
});

describe('axle extract on a path it cannot read as a file', () => {
  // Found by `axle extract ~/.claude/projects` (a folder): "No learnings found in this transcript.", exit 0.
  it('says it cannot read a folder (exit 1) rather than that the transcript held no learnings', async () => {
    const home = tempHome();
    const out = await axle(['extract', home], { home });
    expect(out.code, out.stdout).toBe(1);
    expect(out.stderr).toContain(`Cannot read ${home}: EISDIR`);
    expect(out.stdout).not.toContain('No learnings found');
  });
});
