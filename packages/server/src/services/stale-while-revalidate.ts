import type { Clock } from '../clock.js';

/**
 * Wraps `load` so that the first call waits for it and later calls answer from memory at once; once the value is
 * `ttlMs` old, a call still answers the old value and starts one background refresh. Concurrent loads share one
 * promise. A value's age counts from when its load started: a slow load read the state of that moment. For counts
 * that hot routes (/health, /discover) report and that may be a moment stale.
 */
export function staleWhileRevalidate<T>(load: () => Promise<T>, ttlMs: number, clock: Clock): () => Promise<T> {
  let cached: { at: number; value: T } | undefined;
  let loading: Promise<T> | undefined;
  const refresh = () => {
    if (loading) return loading;
    const startedAt = clock.now();
    loading = load()
      .then((value) => {
        cached = { at: startedAt, value };
        return value;
      })
      .finally(() => (loading = undefined));
    return loading;
  };
  return async () => {
    if (!cached) return refresh();
    if (clock.now() - cached.at >= ttlMs) refresh().catch(() => undefined);
    return cached.value;
  };
}
