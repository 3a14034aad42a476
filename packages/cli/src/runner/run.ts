import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  captureDisabled,
  DraftQueue,
  hashFile,
  HeuristicModel,
  type FlushReport,
  readTranscriptFile,
  runPipeline,
  type SourceClient,
  StateStore,
  Submitter,
} from '@axle/extractor';
import { type AxleConfig, readConfig } from '../lib/config.js';
import type { AxlePaths } from '../lib/paths.js';
import { claudeProjects } from '../clients/locations.js';
import { acquireLock } from './lock.js';
import { removeFiles, type SessionRef, takeSessions } from './sessions.js';

/** A session file untouched this long is finished; younger ones may still be written to. */
export const MISSED_SETTLE_MS = 10 * 60_000;

export interface RunnerOptions {
  paths: AxlePaths;
  config: AxleConfig;
  now?: () => number;
  log: (entry: Record<string, unknown>) => void;
}

export interface RunnerReport {
  status: 'done' | 'busy' | 'kill_switch' | 'capture_off';
  sessions: number;
  missed: number;
  extracted: number;
  drafts: number;
  duplicates: number;
  submission?: FlushReport;
}

const SOURCES: Record<string, SourceClient> = {
  'claude-code': 'claude-code',
  'gemini-cli': 'gemini-cli',
  openclaw: 'openclaw',
};

/** Claude Code sessions that ended after capture was switched on but never reached the hook queue. */
async function missedSessions(since: number, now: number, known: StateStore): Promise<SessionRef[]> {
  const out: SessionRef[] = [];
  let projects: string[];
  try {
    projects = await readdir(claudeProjects());
  } catch {
    return out;
  }
  for (const project of projects) {
    let files: string[];
    try {
      files = (await readdir(join(claudeProjects(), project))).filter((f) => f.endsWith('.jsonl'));
    } catch {
      continue;
    }
    for (const f of files) {
      const path = join(claudeProjects(), project, f);
      const s = await stat(path).catch(() => undefined);
      if (!s?.isFile() || s.mtimeMs < since || s.mtimeMs > now - MISSED_SETTLE_MS) continue;
      if (await known.get(path)) continue;
      out.push({ session_id: f.replace(/\.jsonl$/, ''), transcript_path: path, cwd: null, client: 'claude-code' });
    }
  }
  return out;
}

/**
 * One pass of the extraction runner, as axle-hook starts it: take the queued sessions (and sessions
 * whose hook was missed), read each transcript, scrub and extract locally, queue the drafts, and send
 * them to POST /learn (submission_channel extraction, tagged with the source client). Only one runner
 * works at a time; the kill switch is checked before every session.
 */
export async function runOnce(opts: RunnerOptions): Promise<RunnerReport> {
  const { paths, config, log } = opts;
  const now = opts.now ?? Date.now;
  // Capture switched off since the pass began: the kill switch, or consent revoked (`axle consent revoke` turns
  // capture off in the config file, which is read again each time, an unreadable one counting as off).
  const stopped = async (): Promise<'kill_switch' | 'capture_off' | undefined> => {
    if (await captureDisabled(paths.killSwitch)) return 'kill_switch';
    const current = await readConfig(paths.config).catch((): AxleConfig => ({}));
    return current.capture?.enabled ? undefined : 'capture_off';
  };
  const report: RunnerReport = { status: 'done', sessions: 0, missed: 0, extracted: 0, drafts: 0, duplicates: 0 };
  if (await captureDisabled(paths.killSwitch)) return { ...report, status: 'kill_switch' };
  const release = await acquireLock(paths.runnerLock);
  if (!release) return { ...report, status: 'busy' };
  try {
    const taken = await takeSessions(paths.sessions, now());
    for (const s of taken.skipped) log({ event: 'skipped_line', ...s });
    if (!config.capture?.enabled || !config.api_key || !config.server) {
      // Consent was withdrawn after the hooks were installed: the queued references are dropped unread.
      await removeFiles(taken.files);
      log({ event: 'capture_off', dropped: taken.sessions.length });
      return { ...report, status: 'capture_off', sessions: taken.sessions.length };
    }
    const state = new StateStore(paths.state);
    const queue = new DraftQueue(paths.queue);
    const missed = await missedSessions(Date.parse(config.capture.since), now(), state);
    const queuedPaths = new Set(taken.sessions.map((s) => s.transcript_path));
    const sessions = [...taken.sessions, ...missed.filter((m) => !queuedPaths.has(m.transcript_path))];
    report.sessions = taken.sessions.length;
    report.missed = sessions.length - taken.sessions.length;
    const model = new HeuristicModel();
    for (const session of sessions) {
      const off = await stopped();
      if (off) {
        log({ event: off, left: sessions.length - report.extracted });
        return { ...report, status: off };
      }
      try {
        // A path the hook was handed may name a device or a pipe, which would be read without end, lock held.
        if (!(await stat(session.transcript_path)).isFile()) throw new Error('not a regular file');
        const hash = await hashFile(session.transcript_path);
        if ((await state.get(session.transcript_path))?.hash === hash) continue;
        const read = await readTranscriptFile(session.transcript_path);
        for (const issue of read.issues) log({ event: 'read_issue', file: session.transcript_path, ...issue });
        const extraction = await runPipeline(read.conversation, { model });
        const source = SOURCES[session.client] ?? read.conversation.source;
        const { queued, duplicates } = await queue.enqueueNew(extraction.learnings, source, new Date(now()));
        await state.record({
          file: session.transcript_path,
          hash,
          ts: new Date(now()).toISOString(),
          learnings: queued.length,
        });
        report.extracted++;
        report.drafts += queued.length;
        report.duplicates += duplicates;
        log({
          event: 'extracted',
          file: session.transcript_path,
          client: session.client,
          drafts: queued.length,
          duplicates,
        });
      } catch (err) {
        log({ event: 'session_failed', file: session.transcript_path, message: (err as Error).message });
      }
    }
    await removeFiles(taken.files);
    // Extraction can take a while: capture switched off meanwhile stops the sending too, not only the next session;
    // and it is looked at again before every draft sent, so switching it off mid-flush stops the rest.
    const off = await stopped();
    if (off) {
      log({ event: off, left: 0 });
      return { ...report, status: off };
    }
    const submitter = new Submitter(queue, {
      server: config.server,
      apiKey: config.api_key,
      maxAttempts: 2,
      halt: stopped,
    });
    try {
      report.submission = await submitter.flush();
    } finally {
      await submitter.close();
    }
    log({
      event: 'submitted',
      sent: report.submission.sent.length,
      rejected: report.submission.rejected.length,
      pending: report.submission.pending.length,
      ...(report.submission.stopped && { stopped: report.submission.stopped }),
    });
    const halted = report.submission.stopped;
    if (halted === 'kill_switch' || halted === 'capture_off') return { ...report, status: halted };
    return report;
  } finally {
    await release();
  }
}
