/**
 * Settings that bound a server's resident memory under search load, applied by the launcher
 * (bin/axle-server.js) before the server process starts: glibc gives each allocating thread its own malloc arena
 * (one arena for all: what a second one keeps depends on the start's timing), V8 lets the main thread's young
 * generation grow well past what a server needs, and lets the old generation fill with garbage to several times its
 * live size before collecting it (the growing factor: 1.3 here). None can be changed once the process runs. An
 * operator's own values win, and `AXLE_MEMORY_SETTINGS=off` leaves all alone.
 */
export const MEMORY_ENV = { MALLOC_ARENA_MAX: '1' } as const;
export const MEMORY_NODE_FLAGS = ['--max-semi-space-size=2', '--heap-growing-percent=30'] as const;

export interface LaunchPlan {
  /** Environment variables to add. */
  env: Record<string, string>;
  /** node flags to add. */
  flags: string[];
}

/**
 * What the launcher adds for a process with `env` and node flags `execArgv`; undefined when nothing is to be added
 * (the server then runs in the launcher's own process). glibc's arenas exist on Linux only. Throws on a setting
 * that is neither `on` nor `off`.
 */
export function memoryLaunchPlan(
  env: Readonly<Record<string, string | undefined>>,
  execArgv: readonly string[],
  platform: string,
): LaunchPlan | undefined {
  const setting = env.AXLE_MEMORY_SETTINGS;
  if (setting !== undefined && setting !== 'on' && setting !== 'off')
    throw new Error(`Invalid configuration: AXLE_MEMORY_SETTINGS: on or off, not ${JSON.stringify(setting)}`);
  if (setting === 'off') return undefined;
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)];
  const flags = MEMORY_NODE_FLAGS.filter((f) => !given.some((g) => g.split('=')[0] === f.split('=')[0]));
  const added: Record<string, string> = {};
  if (platform === 'linux')
    for (const [k, v] of Object.entries(MEMORY_ENV)) if (env[k] === undefined || env[k] === '') added[k] = v;
  if (flags.length === 0 && Object.keys(added).length === 0) return undefined;
  return { env: added, flags };
}
