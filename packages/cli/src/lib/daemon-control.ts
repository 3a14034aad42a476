import { readFile, rm } from 'node:fs/promises';
import { axlePaths } from './paths.js';

/** Whether a process with this id exists (signal 0 checks without signalling). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The running daemon's pid, or null; a pid file left by a daemon that died is removed. */
export async function daemonPid(): Promise<number | null> {
  let pid: number;
  try {
    pid = Number((await readFile(axlePaths().daemonPid, 'utf8')).trim());
  } catch {
    return null;
  }
  if (Number.isInteger(pid) && pid > 0 && alive(pid)) return pid;
  await rm(axlePaths().daemonPid, { force: true });
  return null;
}

/** Stops the daemon (SIGTERM, then waits up to `timeoutMs`); false when none was running. */
export async function stopDaemon(timeoutMs = 5000): Promise<boolean> {
  const pid = await daemonPid();
  if (pid === null) return false;
  process.kill(pid, 'SIGTERM');
  const until = Date.now() + timeoutMs;
  while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  await rm(axlePaths().daemonPid, { force: true });
  return true;
}
