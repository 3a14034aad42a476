import { cp, mkdir, mkdtemp, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_OPENCLAW_CONFIG, parseConfigPatch } from '../src/daemon/config.js';
import { OpenClawAdapter, RunInProgressError } from '../src/daemon/adapter.js';
import { globToRegExp } from '../src/daemon/glob.js';
import { scanFiles } from '../src/daemon/scan.js';
import { StateStore } from '../src/daemon/state.js';
import type { Model } from '../src/model/model.js';
import { json, startServer, type TestServer } from './helpers.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
let home: string;
let memory: string;
let claude: string;
let server: TestServer | undefined;
const sleeps: number[] = [];
const adapters: OpenClawAdapter[] = [];

beforeEach(async () => {
  sleeps.length = 0;
  home = await mkdtemp(join(tmpdir(), 'axle-daemon-'));
  memory = join(home, 'workspace');
  claude = join(home, 'claude-projects');
  await cp(join(fixtures, 'openclaw'), memory, { recursive: true });
  await mkdir(join(claude, '-home-dev-projects-ledger-api'), { recursive: true });
  await cp(
    join(fixtures, 'claude-code-session.jsonl'),
    join(claude, '-home-dev-projects-ledger-api', '7d0e5b8c.jsonl'),
  );
});
afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.stop()));
  await server?.close();
  server = undefined;
  await rm(home, { recursive: true, force: true });
});

function adapter(extra: Partial<ConstructorParameters<typeof OpenClawAdapter>[0]> = {}) {
  const a = new OpenClawAdapter({
    memoryPath: memory,
    claudeProjectsPath: claude,
    statePath: join(home, '.axle', 'state.json'),
    queueDir: join(home, '.axle', 'queue'),
    killSwitchPath: join(home, '.axle', 'DISABLED'),
    clock: () => Date.UTC(2026, 10, 23, 4, 0, 0),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
  adapters.push(a);
  return a;
}

describe('config', () => {
  it('has the spec defaults and accepts only the allowed fields', () => {
    expect(DEFAULT_OPENCLAW_CONFIG).toEqual({
      glob_pattern: '**/*.md',
      max_depth: 2,
      max_file_size: 1_000_000,
      max_files_per_run: 20,
      min_file_size: 50,
      delay_between_files_ms: 2000,
      auto_publish: true,
    });
    expect(parseConfigPatch({ max_depth: 3, auto_publish: false })).toEqual({ max_depth: 3, auto_publish: false });
    expect(() => parseConfigPatch({ memory_path: '/etc' })).toThrow(ConfigError);
    expect(() => parseConfigPatch({ max_depth: -1 })).toThrow(/^max_depth: .*>=0/);
    expect(() => parseConfigPatch({ auto_publish: 'yes' })).toThrow(/^auto_publish: .*boolean/);
    expect(() => parseConfigPatch({ max_files_per_run: 0 })).toThrow(/^max_files_per_run/);
  });

  it('compiles globs', () => {
    const md = globToRegExp('**/*.md');
    expect(['MEMORY.md', 'memory/2026-11-19.md', 'a/b/c.md'].every((p) => md.test(p))).toBe(true);
    expect(md.test('memory/notes.txt')).toBe(false);
    expect(globToRegExp('memory/*.{md,txt}').test('memory/x.txt')).toBe(true);
    expect(globToRegExp('memory/*.md').test('memory/sub/x.md')).toBe(false);
  });
});

describe('OpenClawAdapter', () => {
  it('sends nothing when the kill switch is turned on while the last file is being extracted', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_1', status: 'pending_review' }));
    const { HeuristicModel } = await import('../src/model/heuristic.js');
    const heuristic = new HeuristicModel();
    let calls = 0;
    const killSwitch = join(home, '.axle', 'DISABLED');
    const model: Model = {
      name: 'heuristic',
      extract: async (input) => {
        // The person switches capture off during the run; files already started still finish.
        if (++calls === 1) {
          await mkdir(join(home, '.axle'), { recursive: true });
          await writeFile(killSwitch, '');
        }
        return heuristic.extract(input);
      },
    };
    const a = adapter({
      claudeProjectsPath: null,
      config: { max_files_per_run: 1 },
      model,
      submit: { server: server.url, apiKey: 'axl_k' },
    });
    const r = await a.runOnce();
    expect(r.files_processed).toBe(1);
    expect(server.requests).toHaveLength(0);
    expect(r.stopped).toBe('kill_switch');
  });

  // Found by attacking the daemon: the kill switch was looked at once before sending, and stop() (what the daemon
  // does when consent is revoked, or on SIGTERM) waited for the run to send every queued draft.
  for (const how of ['kill switch', 'stop'] as const) {
    it(`sends no draft after the one in flight once ${how === 'kill switch' ? 'the kill switch is on' : 'stop() is called'}`, async () => {
      const { DraftQueue } = await import('../src/submit/queue.js');
      const queue = new DraftQueue(join(home, '.axle', 'queue'));
      for (let n = 1; n <= 3; n++)
        await queue.enqueue(
          {
            title: `Queued draft number ${n} about a real failure`,
            body: `Problem: step ${n} failed with ERR_EXAMPLE_${n}. Fixed by running \`tool --fix-${n}\` after a stale cache.`,
            category: 'code-execution',
            tags: ['node'],
            task_context: 'testing the daemon',
            outcome: 'success',
            quality_self_assessment: { specificity: 4, actionability: 4, novelty: 3, completeness: 4 },
          },
          'claude-code',
          new Date(n),
        );
      const empty = join(home, 'empty-workspace');
      await mkdir(empty);
      let a: OpenClawAdapter | undefined;
      server = await startServer(async (_req, res) => {
        if (how === 'kill switch') await writeFile(join(home, '.axle', 'DISABLED'), '');
        else void a?.stop();
        json(res, 201, { id: 'lrn_1', status: 'pending_review' });
      });
      a = adapter({ memoryPath: empty, claudeProjectsPath: null, submit: { server: server.url, apiKey: 'axl_k' } });
      const r = await a.runOnce();
      expect(server.requests).toHaveLength(1);
      expect(r).toMatchObject({ submitted: 1, queued: 2, stopped: how === 'kill switch' ? 'kill_switch' : 'shutdown' });
    });
  }

  it('extracts memory files and Claude sessions, records state, and skips unchanged files', async () => {
    server = await startServer((_req, res) => json(res, 201, { id: 'lrn_1', status: 'pending_review' }));
    const a = adapter({ submit: { server: server.url, apiKey: 'axl_k' } });
    const first = await a.runOnce();
    expect(first.errors).toEqual([]);
    expect(first.files_seen).toBe(3);
    expect(first.files_processed).toBe(3);
    expect(first.learnings).toBeGreaterThanOrEqual(3);
    expect(first.submitted).toBe(first.learnings);
    expect(first.queued).toBe(0);
    expect(sleeps).toEqual([2000, 2000]);
    const sources = server.requests.map((r) =>
      (JSON.parse(r.body).tags as string[]).find((t) => t.startsWith('source:')),
    );
    expect(new Set(sources)).toEqual(new Set(['source:openclaw', 'source:claude-code']));

    const state = await a.state();
    expect(state.count).toBe(3);
    expect(state.entries[0]).toEqual({
      file: expect.any(String),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      ts: '2026-11-23T04:00:00.000Z',
      learnings: expect.any(Number),
    });
    expect(JSON.parse(await readFile(join(home, '.axle', 'state.json'), 'utf8')).entries).toHaveLength(3);

    const second = await a.runOnce();
    expect(second.files_processed).toBe(0);
    expect(second.files_unchanged).toBe(3);
    expect(server.requests.length).toBe(first.submitted);

    await writeFile(
      join(memory, 'memory', '2026-11-19.md'),
      `${await readFile(join(memory, 'memory', '2026-11-19.md'), 'utf8')}\n## 17:00 — more\nA new note.\n`,
    );
    const third = await a.runOnce();
    expect(third.files_processed).toBe(1);
    expect(third.files_unchanged).toBe(2);

    // A session file that grows is read again, but the learnings it already yielded are not resent.
    const session = join(claude, '-home-dev-projects-ledger-api', '7d0e5b8c.jsonl');
    await writeFile(
      session,
      `${await readFile(session, 'utf8')}${JSON.stringify({ type: 'user', message: { role: 'user', content: 'thanks!' } })}\n`,
    );
    const sentBefore = server.requests.length;
    const fourth = await a.runOnce();
    expect(fourth.files_processed).toBe(1);
    expect(fourth.duplicates).toBe(fourth.learnings);
    expect(fourth.duplicates).toBeGreaterThan(0);
    expect(server.requests.length).toBe(sentBefore);

    const status = await a.status();
    expect(status).toMatchObject({
      daemon_running: false,
      last_run: '2026-11-23T04:00:00.000Z',
      memory_path: memory,
      interval_ms: 900_000,
    });
    expect(status.last_result?.files_processed).toBe(1);
    expect(status.last_result?.duplicates).toBeGreaterThan(0);
  });

  it('keeps drafts in the queue when auto_publish is off, and respects size limits and max_files_per_run', async () => {
    await writeFile(join(memory, 'memory', 'tiny.md'), '# x\n');
    await utimes(join(memory, 'memory', 'tiny.md'), 1, 1); // oldest, so it is considered first
    const a = adapter({ config: { auto_publish: false, max_files_per_run: 2, delay_between_files_ms: 0 } });
    const r = await a.runOnce();
    expect(r.files_processed).toBe(2);
    expect(r.stopped).toBe('max_files_per_run');
    expect(r.skipped).toContainEqual({
      file: join(memory, 'memory', 'tiny.md'),
      reason: expect.stringContaining('min_file_size'),
    });
    expect(r.submitted).toBe(0);
    expect(r.queued).toBe(r.learnings);
    expect(sleeps).toEqual([]);
  });

  it('setConfig rejects unknown fields, applies and persists known ones', async () => {
    const a = adapter();
    await expect(a.setConfig({ max_depth: 1, evil: true })).rejects.toThrow(ConfigError);
    expect((await a.status()).config.max_depth).toBe(2);
    expect(await a.setConfig({ max_depth: 1 })).toMatchObject({ max_depth: 1, glob_pattern: '**/*.md' });
    const again = adapter();
    expect((await again.status()).config.max_depth).toBe(1);
  });

  it('refuses a second trigger while a run is under way', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow: Model = {
      name: 'slow',
      async extract() {
        await gate;
        return [];
      },
    };
    const a = adapter({ model: slow, claudeProjectsPath: null });
    expect(a.trigger()).toEqual({ triggered: true, message: 'extraction run started' });
    expect(a.isRunning()).toBe(true);
    expect(() => a.trigger()).toThrow(RunInProgressError);
    release();
    const r = await a.whenIdle();
    expect(r?.files_processed).toBe(2);
    expect(a.isRunning()).toBe(false);
  });

  it('stop() ends a run that is pausing between files', async () => {
    const a = adapter({ claudeProjectsPath: null, sleep: () => new Promise(() => undefined) });
    a.trigger();
    for (let i = 0; i < 200 && (await a.state()).count < 1; i++) await new Promise((r) => setTimeout(r, 5));
    await a.stop();
    const r = await a.whenIdle();
    expect(r).toMatchObject({ stopped: 'shutdown', files_processed: 1 });
    expect(a.isRunning()).toBe(false);
  });

  it('kill switch: no capture at all while DISABLED exists, and a run stops at the next file when it appears', async () => {
    await mkdir(join(home, '.axle'), { recursive: true });
    await writeFile(join(home, '.axle', 'DISABLED'), '');
    const off = adapter();
    const r = await off.runOnce();
    expect(r).toMatchObject({ stopped: 'kill_switch', files_seen: 0, files_processed: 0 });
    expect((await off.state()).count).toBe(0);

    await rm(join(home, '.axle', 'DISABLED'));
    const a = adapter({
      sleep: async () => {
        await writeFile(join(home, '.axle', 'DISABLED'), ''); // flipped during the pause before the second file
      },
    });
    const cut = await a.runOnce();
    expect(cut.stopped).toBe('kill_switch');
    expect(cut.files_processed).toBe(1);
    expect((await a.state()).count).toBe(1);
  });

  it('watches the folders with chokidar and runs when a memory file is added', async () => {
    const a = adapter({ claudeProjectsPath: null, settleMs: 20, config: { delay_between_files_ms: 0 } });
    await a.start();
    expect((await a.status()).daemon_running).toBe(true);
    await writeFile(
      join(memory, 'memory', '2026-11-22.md'),
      '# 2026-11-22\n\n## Build\nThe docker build failed with `ERR_PNPM_OUTDATED_LOCKFILE`. Fixed by running `pnpm install --no-frozen-lockfile` once and committing the lockfile.\n',
    );
    // The watcher waits for the write to settle, then debounces; poll the adapter's own state.
    for (let i = 0; i < 500 && (await a.state()).count < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await a.state()).entries.map((e) => e.file)).toContain(join(memory, 'memory', '2026-11-22.md'));
    await a.stop();
    expect((await a.status()).daemon_running).toBe(false);
  });
});

describe('scanFiles and state store', () => {
  it('survives a symlink loop in the watched folder and lists each file once', async () => {
    await symlink('..', join(memory, 'memory', 'loop'));
    await symlink(join(memory, 'memory'), join(memory, 'memory-alias'));
    const files = await scanFiles(memory, 10, (rel) => rel.endsWith('.md'));
    expect(files.map((f) => f.path.slice(memory.length + 1)).sort()).toEqual(['MEMORY.md', 'memory/2026-11-19.md']);

    const a = adapter({ claudeProjectsPath: null, config: { max_depth: 10 } });
    await a.start(); // chokidar does not follow the loop
    const r = await a.runOnce();
    expect(r.errors).toEqual([]);
    expect(r.files_processed).toBe(2);
  });

  it('treats a corrupt state file as empty', async () => {
    await mkdir(join(home, '.axle'), { recursive: true });
    await writeFile(join(home, '.axle', 'state.json'), '{"entries": [');
    const s = new StateStore(join(home, '.axle', 'state.json'));
    expect(await s.entries()).toEqual([]);
    await s.record({ file: 'f', hash: 'h', ts: 't', learnings: 0 });
    expect(await new StateStore(join(home, '.axle', 'state.json')).entries()).toHaveLength(1);
  });
});
