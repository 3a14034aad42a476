#!/usr/bin/env node
// The detached extraction runner axle-hook starts. It runs until the hook queue is empty, logging
// to ~/.axle/logs/runner.log, and always exits quietly: nobody is watching its output.
import { appendFile, mkdir } from 'node:fs/promises';
import { readConfig } from '../lib/config.js';
import { axlePaths } from '../lib/paths.js';
import { queuedSessions } from './sessions.js';
import { runOnce } from './run.js';

const paths = axlePaths();
const log = async (entry: Record<string, unknown>) => {
  await mkdir(paths.logs, { recursive: true });
  await appendFile(
    paths.runnerLog,
    `${JSON.stringify({ ts: new Date().toISOString(), pid: process.pid, ...entry })}\n`,
  );
};

try {
  // A hook that fires while a pass is finishing leaves a line behind; go round again for it.
  for (let pass = 0; pass < 10; pass++) {
    const lines: Array<Record<string, unknown>> = [];
    const report = await runOnce({ paths, config: await readConfig(), log: (e) => void lines.push(e) });
    for (const line of lines) await log(line);
    await log({ event: 'pass', ...report, submission: report.submission && { sent: report.submission.sent.length } });
    if (report.status !== 'done' || (await queuedSessions(paths.sessions)) === 0) break;
  }
} catch (err) {
  await log({ event: 'runner_failed', message: (err as Error).message }).catch(() => undefined);
}
