// The toolkit as a user installs it: each publishable package packed with `npm pack`, the tarballs
// installed into an empty folder outside the workspace with npm working offline, then the installed bins
// run from there. The folder gets a lockfile made from the workspace's (the same third-party versions,
// each with its registry URL and integrity, dev-only ones left out, the workspace links replaced by the
// tarballs), so `npm ci --offline` takes every third-party package from npm's cache, where the workspace's
// own `npm ci` put it, without the registry metadata a lockfile-less install would have to resolve.
import { createHash } from 'node:crypto';
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

interface LockEntry {
  link?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  [field: string]: unknown;
}

/**
 * The lockfile of a folder that depends on the tarballs only: the workspace lockfile's production entries
 * (devOptional ones kept as optional), and one entry per tarball with its integrity and its package.json's
 * dependencies and bins, where the workspace had a link.
 */
function appLockfile(tarballs: Array<{ file: string; pkg: Record<string, unknown> }>, appDir: string) {
  const workspace = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const dependencies: Record<string, string> = {};
  const packages: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(workspace.packages)) {
    if (!key.startsWith('node_modules/') || entry.link || entry.dev) continue;
    const { devOptional, ...kept } = entry;
    packages[key] = devOptional ? { ...kept, optional: true } : kept;
  }
  for (const { file, pkg } of tarballs) {
    const spec = `file:${path.relative(appDir, file)}`;
    dependencies[pkg.name as string] = spec;
    const fields = ['dependencies', 'bin', 'engines', 'license'].filter((f) => pkg[f] !== undefined);
    packages[`node_modules/${pkg.name}`] = {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`,
      ...Object.fromEntries(fields.map((f) => [f, pkg[f]])),
    };
  }
  const root = { name: 'fresh-install', version: '1.0.0', private: true, dependencies };
  return {
    packageJson: root,
    lockfile: { ...root, lockfileVersion: 3, requires: true, packages: { '': root, ...packages } },
  };
}

describe('installing the packed packages into an empty folder', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-pack-'));
  const packs = path.join(tmp, 'packs');
  const app = path.join(tmp, 'app');
  const home = path.join(tmp, 'home');
  const bin = (name: string) => path.join(app, 'node_modules/.bin', name);
  const tarballs: string[] = [];

  beforeAll(() => {
    fs.mkdirSync(packs);
    fs.mkdirSync(app);
    fs.mkdirSync(home);
    // One npm run packs them all (each npm start costs a second of CPU); --json names each one's tarball.
    const packed = JSON.parse(
      npm(
        ['pack', '--json', '--silent', '--pack-destination', packs, ...PUBLISHED.map((p) => `-w=packages/${p}`)],
        ROOT,
      ),
    ) as Array<{ name: string; filename: string }>;
    for (const p of PUBLISHED) {
      const { name } = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages', p, 'package.json'), 'utf8'));
      const entry = packed.find((e) => e.name === name);
      if (!entry) throw new Error(`npm pack made no tarball of packages/${p}`);
      tarballs.push(path.join(packs, entry.filename));
    }
    const tarballPkg = (file: string) =>
      JSON.parse(execFileSync('tar', ['-xzOf', file, 'package/package.json'], { encoding: 'utf8' }));
    const { packageJson, lockfile } = appLockfile(
      tarballs.map((file) => ({ file, pkg: tarballPkg(file) })),
      app,
    );
    fs.writeFileSync(path.join(app, 'package.json'), `${JSON.stringify(packageJson, null, 2)}\n`);
    fs.writeFileSync(path.join(app, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
    try {
      // sqlite3's own install step compiles SQLite from source, minutes of CPU; scripts are skipped here and
      // the binary the workspace install compiled from the same sqlite3 version is copied in below.
      npm(['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], app);
    } catch (err) {
      const stderr = String((err as { stderr?: string }).stderr);
      if (!stderr.includes('ENOTCACHED')) throw err;
      throw new Error(
        "npm's cache lacks a package of package-lock.json: run `npm ci` (online) in the workspace once, then npm test",
      );
    }
    const version = (dir: string) =>
      JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/sqlite3/package.json'), 'utf8')).version;
    expect(version(app)).toBe(version(ROOT));
    fs.cpSync(path.join(ROOT, 'node_modules/sqlite3/build'), path.join(app, 'node_modules/sqlite3/build'), {
      recursive: true,
    });
  }, 300_000);
  // 250 MB of installed packages: on a busy disk their removal can outlast the default hook timeout.
  afterAll(() => fs.promises.rm(tmp, { recursive: true, force: true }), 180_000);

  it.each(PUBLISHED)('%s is publishable: not private, files, engines, license, README, bins in the tarball', (p) => {
    const tarball = tarballs[PUBLISHED.indexOf(p)]!;
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n');
    const pkg = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    expect(pkg.private).toBeUndefined();
    expect(pkg.files).toEqual(expect.any(Array));
    expect(pkg.engines).toEqual({ node: '>=20.19.0' });
    expect(pkg.license).toBe('MIT');
    expect(listing).toContain('package/README.md');
    for (const target of Object.values((pkg.bin ?? {}) as Record<string, string>))
      expect(listing).toContain(path.posix.join('package', target));
    expect(listing.some((f) => f.includes('/test/'))).toBe(false);
  });

  it('axle --help lists every command', () => {
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

  it('axle scrub redacts stdin', () => {
    const out = execFileSync(bin('axle'), ['scrub', '--json', '-'], {
      cwd: app,
      input: 'mail bob@example.org',
      encoding: 'utf8',
      env: userEnv({ HOME: home }),
    });
    expect(JSON.parse(out).text).toBe('mail [REDACTED:email]');
  });

  it('axle-mcp answers an MCP client with its tools', async () => {
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

  it('axle serve runs the bundled server', async () => {
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
  }, 60_000); // a first start migrates a new database and imports the catalog
});
