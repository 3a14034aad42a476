// Fills npm's cache with what packages/cli/test/pack.test.ts installs offline: the publishable packages are
// packed and installed once, online, into a throwaway folder. Run after `npm ci`; needs the npm registry.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PUBLISHED = ['sdk', 'scrub', 'extractor', 'server', 'mcp', 'cli'];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-pack-prime-'));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
try {
  const tarballs = PUBLISHED.map((p) =>
    path.join(
      tmp,
      npm(['pack', '--silent', '--pack-destination', tmp, '-w', `packages/${p}`], ROOT)
        .trim()
        .split('\n')
        .pop(),
    ),
  );
  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), '{"name": "prime", "private": true}\n');
  npm(['install', '--prefer-online', '--ignore-scripts', '--no-audit', '--no-fund', ...tarballs], app);
  console.log("npm's cache holds what the packed packages install");
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
