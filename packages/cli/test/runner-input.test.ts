import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { axlePaths } from '../src/lib/paths.js';
import { runOnce } from '../src/runner/run.js';

const saved = process.env.HOME;
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
      config: {
        server: 'http://127.0.0.1:9',
        api_key: 'axle_test',
        capture: { enabled: true, since: new Date(0).toISOString() },
      },
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
        `${JSON.stringify({ session_id: 's', transcript_path: home, cwd: null, client: 'claude-code' })}\n`,
      );
      const report = await runOnce({
        paths,
        config: {
          server: `http://127.0.0.1:${port}`,
          api_key: 'axle_test',
          capture: { enabled: true, since: new Date(0).toISOString() },
        },
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
