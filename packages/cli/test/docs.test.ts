// The CLI's pages say what the CLI does: sign-in is no longer "planned", the hooks file is named where it is,
// and the files that hold the API key are listed as such.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (p: string) => fs.readFileSync(new URL(`../../../docs/${p}`, import.meta.url), 'utf8');

describe('docs/cli.md and docs/device-login.md', () => {
  it('describe device sign-in as working, with its waiting line and --no-browser', () => {
    const device = read('device-login.md');
    expect(device).not.toMatch(/planned/i);
    expect(device).toContain('waiting for approval… m:ss');
    expect(device).toContain('`--no-browser`');
  });

  it('put the Claude Code hooks in ~/.claude/settings.json and list the files holding the key', () => {
    const cli = read('cli.md');
    expect(cli).not.toContain('next to `.claude.json`');
    expect(cli).toContain('`~/.claude/settings.json`');
    expect(cli).toMatch(/Every file in this table holds the API key[\s\S]*mode 600/);
    // The table names each client's file (ten rows).
    const rows = cli.split('\n').filter((l) => /^\| [A-Z][^|]+ \| `[^`]+` .*\|$/.test(l) && !l.startsWith('| Client'));
    expect(rows).toHaveLength(10);
  });
});
