// The toolkit as a user installs it: each publishable package packed with `npm pack`, the tarballs
// installed into an empty folder outside the workspace with npm working offline (third-party packages
// from npm's cache), then the installed bins run from there. A workspace install caches tarballs but not
// the registry metadata an install into an empty folder resolves with: `npm run pack:prime` fetches it
// once (.ci/run does); without it the install tests skip with one line saying so.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PUBLISHED = ['sdk', 'scrub', 'extractor', 'server', 'mcp', 'cli'].filter((p) =>
  fs.existsSync(path.join(ROOT, 'packages', p, 'package.json')),
);
/** A user's environment: vitest's NODE_ENV=test would make oclif look for TypeScript sources. */
const userEnv = (extra: Record<string, string>) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  delete env.NODE_ENV;
  return env;
};
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

describe('installing the packed packages into an empty folder', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-pack-'));
  const packs = path.join(tmp, 'packs');
  const app = path.join(tmp, 'app');
  const home = path.join(tmp, 'home');
  const bin = (name: string) => path.join(app, 'node_modules/.bin', name);
  const tarballs: string[] = [];
  let installed = false;

  beforeAll(() => {
    fs.mkdirSync(packs);
    fs.mkdirSync(app);
    fs.mkdirSync(home);
    for (const p of PUBLISHED) {
      const name = npm(['pack', '--silent', '--pack-destination', packs, '-w', `packages/${p}`], ROOT)
        .trim()
        .split('\n')
        .pop()!;
      tarballs.push(path.join(packs, name));
    }
    fs.writeFileSync(path.join(app, 'package.json'), '{"name": "fresh-install", "private": true}\n');
    try {
      // sqlite3's own install step compiles SQLite from source, minutes of CPU; scripts are skipped here and
      // the binary the workspace install compiled from the same sqlite3 version is copied in below.
      npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', ...tarballs], app);
    } catch (err) {
      const stderr = String((err as { stderr?: string }).stderr);
      if (!stderr.includes('ENOTCACHED')) throw err;
      console.warn(
        "install tests skipped: npm's cache lacks registry metadata the offline install needs (run `npm run pack:prime` once)",
      );
      return;
    }
    installed = true;
    const version = (dir: string) =>
      JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/sqlite3/package.json'), 'utf8')).version;
    expect(version(app)).toBe(version(ROOT));
    fs.cpSync(path.join(ROOT, 'node_modules/sqlite3/build'), path.join(app, 'node_modules/sqlite3/build'), {
      recursive: true,
    });
  }, 300_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it.each(PUBLISHED)('%s is publishable: not private, files, engines, license, README, bins in the tarball', (p) => {
    const tarball = tarballs[PUBLISHED.indexOf(p)]!;
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    const pkg = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    expect(pkg.private).toBeUndefined();
    expect(pkg.files).toEqual(expect.any(Array));
    expect(pkg.engines).toEqual({ node: '>=20' });
    expect(pkg.license).toBe('MIT');
    expect(listing).toContain('package/README.md');
    for (const target of Object.values((pkg.bin ?? {}) as Record<string, string>))
      expect(listing).toContain(path.posix.join('package', target));
    expect(listing.some((f) => f.includes('/test/'))).toBe(false);
  });

  it('axle --help lists every command', (ctx) => {
    if (!installed) ctx.skip();
    const out = execFileSync(bin('axle'), ['--help'], { cwd: app, encoding: 'utf8', env: userEnv({ HOME: home }) });
    for (const c of [
      'setup',
      'login',
      'logout',
      'whoami',
      'review',
      'kill-switch',
      'consent',
      'scrub',
      'extract',
      'daemon',
      'status',
      'serve',
    ]) {
      expect(out).toMatch(new RegExp(`\\n  ${c} `));
    }
  });

  it('axle scrub redacts stdin', (ctx) => {
    if (!installed) ctx.skip();
    const out = execFileSync(bin('axle'), ['scrub', '--json', '-'], {
      cwd: app,
      input: 'mail bob@example.org',
      encoding: 'utf8',
      env: userEnv({ HOME: home }),
    });
    expect(JSON.parse(out).text).toBe('mail [REDACTED:email]');
  });

  it('axle-mcp answers an MCP client with its tools', async (ctx) => {
    if (!installed) ctx.skip();
    const client = new Client({ name: 'pack-test', version: '0.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: bin('axle-mcp'),
        cwd: app,
        env: { PATH: process.env.PATH ?? '', HOME: home },
        stderr: 'pipe',
      }),
    );
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['svc_discover', 'svc_knowledge', 'svc_review']));
    } finally {
      await client.close();
    }
  });

  it('axle serve runs the bundled server', async (ctx) => {
    if (!installed) ctx.skip();
    const child = spawn(bin('axle'), ['serve', '--port', '0', '--data-dir', path.join(tmp, 'data')], {
      cwd: app,
      env: userEnv({ HOME: home, AXLE_SEMANTIC_SEARCH: 'off', LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`axle serve exited with ${code}: ${out}`)));
    });
    const health = await (await fetch(`${url}/health`)).json();
    expect(health.status).toBe('ok');
    expect(health.skills_catalog_size).toBeGreaterThan(0);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
