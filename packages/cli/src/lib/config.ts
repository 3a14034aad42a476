// The subpath: the package's index loads zod and every schema, which a command reading its config does not need.
import { serverUrl } from '@axle/sdk/client';
import { EXIT, fail } from './exit.js';
import { readText, writeAtomic } from './files.js';
import { axlePaths } from './paths.js';

/** `~/.axle/config.json`: where the server is and the key device login handed over. */
export interface AxleConfig {
  server?: string;
  api_key?: string;
  account_id?: string;
  email?: string;
  /** Background extraction, switched on only by an explicit yes (setup's prompt or --enable-extraction). */
  capture?: { enabled: boolean; since: string };
}

export const DEFAULT_SERVER = 'http://localhost:8402';

/** The config at `file` (~/.axle/config.json by default); {} when there is none. */
export async function readConfig(file = axlePaths().config): Promise<AxleConfig> {
  const text = await readText(file).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`${file} cannot be read (${err.code ?? err.message}); fix or delete it`);
  });
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as AxleConfig) : {};
  } catch {
    throw new Error(`${file} is not valid JSON; fix or delete it`);
  }
}

/** Written owner-only, also over a file that was readable by others before: it holds an API key. */
export async function writeConfig(config: AxleConfig): Promise<void> {
  await writeAtomic(axlePaths().config, `${JSON.stringify(config, null, 2)}\n`, { forceMode: 0o600 });
}

export async function updateConfig(change: (c: AxleConfig) => AxleConfig): Promise<AxleConfig> {
  const next = change(await readConfig());
  await writeConfig(next);
  return next;
}

/**
 * The server to talk to: the flag, else the saved one, else the default. An address that is not an http(s) URL is a
 * usage error, before any request is made.
 */
export function serverOf(config: AxleConfig, flag?: string): string {
  const server = (flag ?? config.server ?? DEFAULT_SERVER).replace(/\/+$/, '');
  if (!serverUrl(server)) fail(`${server} is not a server address: give its URL, like ${DEFAULT_SERVER}`, EXIT.USAGE);
  return server;
}
