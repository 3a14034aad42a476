import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));

/** Runs the built CLI as a user would (the root `prepare` script builds it). */
function axle(args: string[], input: string | Buffer) {
  return spawnSync(process.execPath, [bin, ...args], { cwd: root, input, encoding: 'utf8' });
}

describe('axle scrub', () => {
  const input = `${JSON.stringify({ type: 'tool_result', content: 'DB_PASSWORD=hunter2x9\nmail bob@example.org' })}\n`;

  it('--json - prints {text, report} for stdin', () => {
    const r = axle(['scrub', '--json', '-'], input);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.text).toBe(
      `${JSON.stringify({ type: 'tool_result', content: 'DB_PASSWORD=[REDACTED:secret_assignment]\nmail [REDACTED:email]' })}\n`,
    );
    expect(out.report).toEqual({
      scrubber_version: expect.any(String),
      patterns_matched: ['email', 'secret_assignment'],
      clean: false,
    });
  });

  it('prints the scrubbed text alone without --json, the same on every run', () => {
    const first = axle(['scrub', '-'], input);
    const second = axle(['scrub', '-'], input);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    expect(first.stdout).not.toContain('hunter2x9');
    expect(first.stdout).not.toContain('bob@example.org');
  });

  it('--thorough also replaces person names and street addresses, and counts each type', () => {
    const r = axle(['scrub', '--thorough', '--json', '-'], 'Ask Ana Souza; mail bob@example.org. Ana Souza owns it.');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.text).toBe('Ask [PERSON_1]; mail [REDACTED:email]. [PERSON_1] owns it.');
    expect(out.report).toMatchObject({ tier: 'thorough', counts: { person: 2, email: 1 } });
  });

  // Found by scrubbing a Latin-1 log and a folder: the log came out with every é turned into U+FFFD without a word,
  // and the folder ended on 'Error: EISDIR: illegal operation on a directory, read' naming nothing.
  it('says so when the input is not UTF-8 text, and names a path it cannot read', () => {
    const latin1 = Buffer.from('caf\u00e9 au lait, DB_PASSWORD=hunter2x9\n', 'latin1');
    const r = axle(['scrub', '-'], latin1);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('caf\ufffd au lait, DB_PASSWORD=[REDACTED:secret_assignment]\n');
    expect(r.stderr).toBe('The input is not UTF-8 text: the bytes that are not were replaced with U+FFFD (\ufffd).\n');
    expect(axle(['scrub', '-'], 'plain text\n').stderr).toBe('');
    const folder = axle(['scrub', root], '');
    expect(folder.status).toBe(1);
    expect(folder.stderr).toContain(`Cannot read ${root}: EISDIR`);
  });
});
