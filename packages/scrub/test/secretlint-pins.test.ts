// What the scrubber assumes about secretlint's internals, checked so that an upgrade that changes it fails here:
// preset-windows.ts is derived from the preset's rule sources (pinned there by version and rule ids), and
// secretlint.ts silences the profiler by replacing `mark` on the instance @secretlint/core records through.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendPreset } from '@secretlint/secretlint-rule-preset-recommend';
import { describe, expect, it } from 'vitest';
import scrubPackage from '../package.json' with { type: 'json' };
import '../src/secretlint.js';

const require = createRequire(import.meta.url);
const SECRETLINT = [
  '@secretlint/core',
  '@secretlint/profiler',
  '@secretlint/secretlint-rule-preset-recommend',
] as const;
const PRESET = { rules: [{ id: '@secretlint/secretlint-rule-preset-recommend', rule: recommendPreset }] };

/** The version of the installed package `name`, read from its package.json. */
function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!dir.endsWith(join('node_modules', name))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
}

describe('secretlint', () => {
  it('is pinned to one exact version, the one installed', () => {
    const pins = SECRETLINT.map((name) => (scrubPackage.dependencies as Record<string, string>)[name]);
    expect(pins).toEqual(['12.0.0', '12.0.0', '12.0.0']);
    expect(SECRETLINT.map(installedVersion)).toEqual(pins);
  });

  it('records its profile through the profiler instance whose mark the scrubber replaces', async () => {
    const silenced = secretLintProfiler.mark;
    let marks = 0;
    secretLintProfiler.mark = () => {
      marks++;
    };
    try {
      await lintSource({
        source: { filePath: '/t.txt', content: 'ghp_0123456789abcdefghijABCDEFGHIJ012345', contentType: 'text' },
        options: { config: PRESET, noPhysicFilePath: true },
      });
    } finally {
      secretLintProfiler.mark = silenced;
    }
    expect(marks).toBeGreaterThan(0);
    // Loading the scrubber put its own mark on the instance, in place of the class's.
    expect(Object.hasOwn(secretLintProfiler, 'mark')).toBe(true);
    expect(silenced).not.toBe(Object.getPrototypeOf(secretLintProfiler).mark);
  });
});
