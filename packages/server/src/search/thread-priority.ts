import fs from 'node:fs';
import os from 'node:os';

/**
 * Lowers the CPU priority of the calling thread (a worker thread's own, not the process's), so that
 * when the cores are contended the event loop (HTTP, /health, lexical search) runs before model
 * inference, which takes whatever CPU is left. Linux only: there setpriority() on a thread id
 * changes that thread alone, and /proc/thread-self names the caller. Elsewhere, and where the call
 * is refused, nothing changes and false comes back.
 */
export function lowerThreadPriority(niceness: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const tid = Number(lastSegment(fs.readlinkSync('/proc/thread-self')));
    os.setPriority(tid, niceness);
    return os.getPriority(tid) === niceness;
  } catch {
    return false;
  }
}

/** "<pid>/task/<tid>" -> "<tid>". */
const lastSegment = (link: string) => link.slice(link.lastIndexOf('/') + 1);
