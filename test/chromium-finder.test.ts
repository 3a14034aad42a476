import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findChromium, launchChromium, MISSING_CHROMIUM } from './support/chromium.js';

const executablePath = findChromium();
if (!executablePath) console.warn(MISSING_CHROMIUM);

describe('findChromium', () => {
  it('takes CHROMIUM_PATH when it names an executable', () => {
    expect(findChromium({ CHROMIUM_PATH: process.execPath })).toBe(process.execPath);
  });

  it('refuses a CHROMIUM_PATH that names no executable instead of skipping', () => {
    expect(() => findChromium({ CHROMIUM_PATH: '/nonexistent/chromium' })).toThrow(
      'CHROMIUM_PATH=/nonexistent/chromium is not an executable file',
    );
  });
});

describe.skipIf(!executablePath)('launchChromium', () => {
  it('keeps what Chromium writes under HOME out of the real HOME', async () => {
    const real = os.homedir();
    const watched = ['.config/chromium', '.cache/chromium', '.cache/dconf', '.pki'];
    const before = watched.map((p) => fs.statSync(path.join(real, p), { throwIfNoEntry: false })?.mtimeMs);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-chromium-test-'));
    try {
      const browser = await launchChromium(executablePath!, home);
      await (await browser.newPage()).setContent('<p>hi</p>');
      await browser.close();
      expect(fs.existsSync(path.join(home, '.config/chromium'))).toBe(true);
      const after = watched.map((p) => fs.statSync(path.join(real, p), { throwIfNoEntry: false })?.mtimeMs);
      expect(after).toEqual(before);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
