import { type FSWatcher, watch } from 'chokidar';

export interface WatchOptions {
  paths: string[];
  depth: number;
  /** Quiet time after the last write before a file counts as changed. */
  stabilityMs: number;
  /** Called for every added or changed file the filter accepts. */
  onChange: (path: string) => void;
  accept: (path: string) => boolean;
  /** Called with watcher errors (e.g. EACCES, ELOOP); the watcher keeps running. */
  onError?: (err: unknown) => void;
}

/**
 * chokidar over the capture folders. Symlinks are not followed: the scanner resolves them safely at run
 * time, and a watcher that followed a symlink loop would keep adding watches. Writes are awaited until
 * the file is quiet, so a memory file being saved is not read half-written.
 */
export async function startWatcher(opts: WatchOptions): Promise<FSWatcher> {
  const watcher = watch(opts.paths, {
    ignoreInitial: true,
    followSymlinks: false,
    depth: opts.depth,
    awaitWriteFinish: { stabilityThreshold: opts.stabilityMs, pollInterval: Math.min(100, opts.stabilityMs) },
    ignored: (path, stats) => stats?.isFile() === true && !opts.accept(path),
  });
  const fire = (path: string) => {
    if (opts.accept(path)) opts.onChange(path);
  };
  watcher.on('add', fire);
  watcher.on('change', fire);
  watcher.on('error', (err) => opts.onError?.(err));
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  return watcher;
}
