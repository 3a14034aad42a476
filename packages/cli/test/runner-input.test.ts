import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AxleConfig } from '../src/lib/config.js';
import { type AxlePaths, axlePaths } from '../src/lib/paths.js';
import { runOnce } from '../src/runner/run.js';

const saved = process.env.HOME;

/** A config with capture on, written where the runner reads it again (`axle consent revoke` changes it there). */
function saveConfig(paths: AxlePaths, server: string, enabled = true): AxleConfig {
  const config = { server, api_key: 'axle_test', capture: { enabled, since: new Date(0).toISOString() } };
  fs.writeFileSync(paths.config, JSON.stringify(config), { mode: 0o600 });
  return config;
}

const DRAFT = {
  title: 'Pin the resolver when npm ci fails with ERESOLVE',
  body: 'npm ci failed with ERESOLVE; adding overrides for the peer fixed it.',
  category: 'code-execution',
  tags: ['npm'],
  task_context: 'installing dependencies',
  outcome: 'success',
  quality_self_assessment: { specificity: 4, actionability: 4, novelty: 3, completeness: 4 },
} as const;
afterEach(() => {
  process.env.HOME = saved;
});

describe('the runner on a queued transcript_path that is not a regular file', () => {
  it('skips a device or a directory with a log entry instead of reading it forever', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-runner-'));
    process.env.HOME = home;
    const paths = axlePaths();
    fs.mkdirSync(path.dirname(paths.sessions), { recursive: true });
    const refs = ['/dev/zero', home].map((p) =>
      JSON.stringify({ session_id: 's', transcript_path: p, cwd: null, client: 'claude-code' }),
    );
    fs.writeFileSync(paths.sessions, `${refs.join('\n')}\n`);
    const log: Array<Record<string, unknown>> = [];
    const report = await runOnce({
      paths,
      config: saveConfig(paths, 'http://127.0.0.1:9'),
      log: (e) => void log.push(e),
    });
    expect(report).toMatchObject({ status: 'done', sessions: 2, extracted: 0 });
    expect(log.filter((l) => l.event === 'session_failed').map((l) => [l.file, l.message])).toEqual([
      ['/dev/zero', 'not a regular file'],
      [home, 'not a regular file'],
    ]);
    // The lock was released: the next runner is not shut out.
    expect(fs.existsSync(paths.runnerLock)).toBe(false);
  }, 10_000);
});

describe('the runner when the kill switch is turned on during a run', () => {
  it('sends nothing once the sentinel exists, even after the last session was extracted', async () => {
    const http = await import('node:http');
    const { DraftQueue } = await import('@axle/extractor');
    let posts = 0;
    const server = http.createServer((req, res) => {
      posts++;
      req.resume();
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'lrn_1', status: 'pending_review' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-runner-'));
      process.env.HOME = home;
      const paths = axlePaths();
      fs.mkdirSync(path.dirname(paths.sessions), { recursive: true });
      await new DraftQueue(paths.queue).enqueue(
        {
          title: 'Pin the resolver when npm ci fails with ERESOLVE',
          body: 'npm ci failed with ERESOLVE; adding overrides for the peer fixed it.',
          category: 'debugging',
          tags: ['npm'],
          task_context: 'installing dependencies',
          outcome: 'success',
          quality_self_assessment: { specificity: 4, actionability: 4, novelty: 3, completeness: 4 },
        },
        'claude-code',
        new Date(0),
      );
      fs.writeFileSync(
        paths.sessions,
        // A folder as its transcript: the session fails at once, and consent is revoked then.
        `${JSON.stringify({ session_id: 's', transcript_path: process.env.HOME, cwd: null, client: 'claude-code' })}\n`,
      );
      const report = await runOnce({
        paths,
        config: saveConfig(paths, `http://127.0.0.1:${port}`),
        // The person turns capture off while the runner works on its last session.
        log: (e) => {
          if (e.event === 'session_failed') fs.writeFileSync(paths.killSwitch, '');
        },
      });
      expect(posts).toBe(0);
      expect(report.status).toBe('kill_switch');
      expect(fs.readdirSync(path.join(paths.queue, 'pending')).filter((n) => n.endsWith('.json'))).toHaveLength(1);
    } finally {
      server.close();
    }
  }, 10_000);
});

// Found by attacking the runner: it looked at the kill switch once before sending and at the config not at all after
// its start, so a switch turned on, or consent revoked (`axle consent revoke` turns capture off in the config), while
// drafts were being sent, or while sessions were being extracted, still let every queued draft go out.
describe('the runner when capture is switched off while it sends', () => {
  const pending = (paths: AxlePaths) =>
    fs.readdirSync(path.join(paths.queue, 'pending')).filter((n) => n.endsWith('.json'));
  /** A new HOME for this process, with its queue folder. */
  const freshHome = () => {
    process.env.HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-runner-'));
    const paths = axlePaths();
    fs.mkdirSync(paths.queue, { recursive: true });
    return paths;
  };

  for (const how of ['kill switch', 'consent revoked'] as const) {
    it(`sends no draft after the one in flight once the ${how === 'kill switch' ? 'kill switch is on' : 'consent is revoked'}`, async () => {
      const { DraftQueue } = await import('@axle/extractor');
      const { startServer } = await import('../../extractor/test/helpers.js');
      const paths = freshHome();
      const server = await startServer((_req, res) => {
        // The person switches capture off while the first draft is on its way.
        if (how === 'kill switch') fs.writeFileSync(paths.killSwitch, '');
        else saveConfig(paths, server.url, false);
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'lrn_1', status: 'pending_review' }));
      });
      try {
        const queue = new DraftQueue(paths.queue);
        for (let n = 1; n <= 3; n++)
          await queue.enqueue({ ...DRAFT, title: `${DRAFT.title} ${n}` }, 'claude-code', new Date(n));
        const report = await runOnce({ paths, config: saveConfig(paths, server.url), log: () => undefined });
        expect(server.requests).toHaveLength(1);
        expect(report.status).toBe(how === 'kill switch' ? 'kill_switch' : 'capture_off');
        expect(pending(paths)).toHaveLength(2);
      } finally {
        await server.close();
      }
    }, 10_000);
  }

  it('sends nothing when consent is revoked while the last session is being extracted', async () => {
    const { DraftQueue } = await import('@axle/extractor');
    const { startServer } = await import('../../extractor/test/helpers.js');
    const paths = freshHome();
    const server = await startServer((_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'lrn_1', status: 'pending_review' }));
    });
    try {
      await new DraftQueue(paths.queue).enqueue(DRAFT, 'claude-code', new Date(0));
      fs.writeFileSync(
        paths.sessions,
        // A folder as its transcript: the session fails at once, and consent is revoked then.
        `${JSON.stringify({ session_id: 's', transcript_path: process.env.HOME, cwd: null, client: 'claude-code' })}\n`,
      );
      const report = await runOnce({
        paths,
        config: saveConfig(paths, server.url),
        log: (e) => {
          if (e.event === 'session_failed') saveConfig(paths, server.url, false);
        },
      });
      expect(server.requests).toHaveLength(0);
      expect(report.status).toBe('capture_off');
      expect(pending(paths)).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 10_000);
});
