// Finds a Chromium for the browser tests: CHROMIUM_PATH, then the usual install locations, then the browser
// playwright-core would have downloaded. Without one, browser tests skip with MISSING_CHROMIUM as their one line.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';

export const MISSING_CHROMIUM =
  'browser tests skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH to a Chromium or Chrome)';

const USUAL_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** Flags for a headless run on a closed network. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Without these Chromium keeps calling home, which fails loudly on a closed network.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function playwrightDownload(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined; // a platform playwright has no build for
  }
}

/**
 * The Chromium executable to drive, or undefined when the machine has none. A CHROMIUM_PATH that names no executable
 * is an error, not a skip, so a CI that sets it cannot silently stop running the browser tests.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.CHROMIUM_PATH;
  if (chosen) {
    if (!isExecutable(chosen)) throw new Error(`CHROMIUM_PATH=${chosen} is not an executable file`);
    return chosen;
  }
  return [...USUAL_PATHS, playwrightDownload()].find((file): file is string => !!file && isExecutable(file));
}

/**
 * Launches headless Chromium with HOME and the XDG folders in a temporary directory (or `home`), so the
 * profile, cache and dconf files it writes never land in the real HOME; closing the browser removes a
 * temporary one.
 */
export async function launchChromium(executablePath: string, home?: string): Promise<Browser> {
  const dir = home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'axle-chromium-home-'));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, '.config'),
    XDG_CACHE_HOME: path.join(dir, '.cache'),
    XDG_DATA_HOME: path.join(dir, '.local/share'),
  };
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, env });
  if (!home) browser.once('disconnected', () => fs.rmSync(dir, { recursive: true, force: true }));
  return browser;
}
