// Every bin must be linked by the first `npm install`/`npm ci` of a fresh clone, before anything is built: npm links
// a bin only when its target exists, so each one is a small committed file that imports the built code.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const readJson = (file: string) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

interface Bin {
  name: string;
  workspace: string;
  target: string; // relative to the workspace
}

const lock = readJson('package-lock.json') as { packages: Record<string, { bin?: Record<string, string> }> };
const bins: Bin[] = (readJson('package.json').workspaces as string[]).flatMap((workspace) =>
  Object.entries((readJson(`${workspace}/package.json`).bin ?? {}) as Record<string, string>).map(([name, target]) => ({
    name,
    workspace,
    target,
  })),
);

/** Git's record of a file: its mode (100755 when executable) or undefined when it is not committed. */
function committedMode(file: string): string | undefined {
  const line = execFileSync('git', ['ls-files', '--stage', '--', file], { cwd: ROOT, encoding: 'utf8' });
  return line ? line.split(' ')[0] : undefined;
}

describe('bins', () => {
  it('cover axle, axle-mcp and axle-server', () => {
    expect(bins.map((b) => b.name)).toEqual(expect.arrayContaining(['axle', 'axle-mcp', 'axle-server']));
  });

  describe.each(bins)('$name', ({ name, workspace, target }) => {
    const file = path.join(workspace, target);

    it('is a committed, executable node script outside the build output', () => {
      expect(committedMode(file), `${file} is not committed`).toBe('100755');
      expect(file).not.toMatch(/\/dist\//);
      expect(fs.readFileSync(path.join(ROOT, file), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
    });

    it('is recorded in the lockfile as package.json declares it, since npm ci links from the lockfile', () => {
      expect(lock.packages[workspace]?.bin?.[name]).toBe(path.normalize(target));
    });

    it('is linked in node_modules/.bin to that file', () => {
      expect(fs.realpathSync(path.join(ROOT, 'node_modules/.bin', name))).toBe(fs.realpathSync(path.join(ROOT, file)));
    });
  });

  it('npx axle-mcp starts an MCP server that lists its tools', async () => {
    const transport = new StdioClientTransport({
      command: 'npx',
      args: ['--no-install', 'axle-mcp'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'axle-bin-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('npx axle answers --version', () => {
    const out = execFileSync('npx', ['--no-install', 'axle', '--version'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toMatch(/^@axle\/cli\/\d+\.\d+\.\d+ /);
  });
});
