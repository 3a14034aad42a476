import type { Clock } from '../clock.js';

/** What a probe last learned: the value of its last read, or that the dependency does not answer (and why, if it said). */
export type ProbeResult<T> = { ok: true; value: T } | { ok: false; error?: unknown };

export interface ProbeOptions {
  /** A read starts at most this often, however often the probe is asked. */
  intervalMs: number;
  /** A read unanswered this long counts as a failure (and the first call waits at most this, on the wall clock). */
  answerWithinMs: number;
}

/**
 * Wraps `read` for a health check: polled often, answers at once from the last read's outcome, starting one read
 * (never two at a time) when the last started `intervalMs` ago or more; polled seldom, from the read its poll starts
 * (waiting at most `answerWithinMs`). Not ok while the last read failed, or the one under way has had no answer for
 * `answerWithinMs`; ok again with the next read that succeeds.
 */
export function probe<T>(read: () => Promise<T>, clock: Clock, opts: ProbeOptions): () => Promise<ProbeResult<T>> {
  let last: ProbeResult<T> | undefined;
  let pending: { since: number; done: Promise<void> } | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;
  const start = () => {
    lastStart = clock.now();
    const done = read()
      .then(
        (value) => {
          last = { ok: true, value };
        },
        (error: unknown) => {
          last = { ok: false, error };
        },
      )
      .finally(() => {
        pending = undefined;
      });
    pending = { since: lastStart, done };
  };
  return async () => {
    const since = clock.now() - lastStart;
    const starts = !pending && since >= opts.intervalMs;
    if (starts) start();
    // Nothing known yet (the first poll), or only what a read long before this poll found (polled seldom): the read
    // this poll started, within the bound.
    if (pending && (!last || (starts && since >= opts.intervalMs + opts.answerWithinMs))) {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.answerWithinMs).unref()));
      await Promise.race([pending.done, bound]).finally(() => clearTimeout(timer));
    }
    if (last && !last.ok) return last;
    if (!last || (pending && clock.now() - pending.since >= opts.answerWithinMs)) return { ok: false };
    return last;
  };
}
