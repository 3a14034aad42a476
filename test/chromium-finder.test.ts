import { describe, expect, it } from 'vitest';
import { findChromium } from './support/chromium.js';

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
