import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));

/** Runs the built CLI as a user would (the root `prepare` script builds it). */
function axle(args: string[], input: string) {
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
});
