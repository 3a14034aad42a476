import { readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A session handed over by axle-hook (or found by the missed-session scan). */
export interface SessionRef {
  session_id: string | null;
  transcript_path: string;
  cwd: string | null;
  client: string;
}

export interface TakenSessions {
  sessions: SessionRef[];
  /** Lines that were not a session: skipped, with why, for the log. */
  skipped: Array<{ file: string; line: number; reason: string }>;
  /** Work files to delete once their sessions are handled. */
  files: string[];
}

function parseLine(line: string): SessionRef | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'not JSON';
  }
  const o = v as Partial<SessionRef> | null;
  if (!o || typeof o !== 'object' || typeof o.transcript_path !== 'string' || o.transcript_path === '')
    return 'no transcript_path';
  return {
    session_id: typeof o.session_id === 'string' ? o.session_id : null,
    transcript_path: o.transcript_path,
    cwd: typeof o.cwd === 'string' ? o.cwd : null,
    client: typeof o.client === 'string' ? o.client : 'unknown',
  };
}

/**
 * Takes the hook queue: renames sessions.jsonl to a work file (hooks then start a new one), and reads
 * it with any work files an interrupted runner left. The same transcript queued twice is read once.
 */
export async function takeSessions(queueFile: string, now: number): Promise<TakenSessions> {
  const dir = dirname(queueFile);
  try {
    await rename(queueFile, join(dir, `${basename(queueFile)}.${now}.${process.pid}.work`));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let names: string[] = [];
  try {
    names = (await readdir(dir)).filter((n) => n.startsWith(`${basename(queueFile)}.`) && n.endsWith('.work')).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const out: TakenSessions = { sessions: [], skipped: [], files: [] };
  const seen = new Set<string>();
  for (const name of names) {
    const file = join(dir, name);
    out.files.push(file);
    const lines = (await readFile(file, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const parsed = parseLine(line);
      if (typeof parsed === 'string') out.skipped.push({ file, line: i + 1, reason: parsed });
      else if (!seen.has(parsed.transcript_path)) {
        seen.add(parsed.transcript_path);
        out.sessions.push(parsed);
      }
    });
  }
  return out;
}

export async function removeFiles(files: string[]): Promise<void> {
  for (const f of files) await rm(f, { force: true });
}

/** Hook lines waiting to be taken (for `axle status`). */
export async function queuedSessions(queueFile: string): Promise<number> {
  try {
    if ((await stat(queueFile)).size === 0) return 0;
    return (await readFile(queueFile, 'utf8')).split('\n').filter((l) => l.trim()).length;
  } catch {
    return 0;
  }
}
