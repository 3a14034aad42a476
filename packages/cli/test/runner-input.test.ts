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
