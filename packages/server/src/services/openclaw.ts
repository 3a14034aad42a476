import path from 'node:path';
import type { OpenClawAdapter } from '@axle/extractor';
import { ERROR_CODES } from '@axle/sdk';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../logger.js';

/** The OpenClaw memory-file adapter, when AXLE_OPENCLAW_MEMORY_PATH is set; every call throws 503 otherwise. */
export interface OpenClawService {
  status(): ReturnType<OpenClawAdapter['status']>;
  /** Starts a run in the background; DomainError conflict while one is under way. */
  trigger(): Promise<ReturnType<OpenClawAdapter['trigger']>>;
  setConfig(patch: Parameters<OpenClawAdapter['setConfig']>[0]): ReturnType<OpenClawAdapter['setConfig']>;
  state(): ReturnType<OpenClawAdapter['state']>;
  close(): Promise<void>;
}

export interface OpenClawDeps {
  config: Pick<Config, 'openclawMemoryPath' | 'openclawApiKey' | 'dataDir'>;
  clock: Clock;
  logger: Logger;
  baseUrl(): string;
}

const notConfigured = () =>
  new DomainError(ERROR_CODES.OPENCLAW_NOT_CONFIGURED, 'OpenClaw adapter not configured', {
    message: 'Set AXLE_OPENCLAW_MEMORY_PATH to the OpenClaw workspace folder and restart the server.',
  });

export function createOpenClawService({ config, clock, logger, baseUrl }: OpenClawDeps): OpenClawService {
  const { openclawMemoryPath, openclawApiKey } = config;
  // The extractor (scrubber, secretlint) is slow to load: only when the adapter is configured.
  const extractor = openclawMemoryPath ? import('@axle/extractor') : null;
  const create = async (memoryPath: string): Promise<OpenClawAdapter> =>
    new (await extractor!).OpenClawAdapter({
      memoryPath,
      // The server captures OpenClaw memory only; Claude Code sessions are the CLI runner's job.
      claudeProjectsPath: null,
      statePath: path.join(config.dataDir, 'openclaw', 'state.json'),
      queueDir: path.join(config.dataDir, 'openclaw', 'queue'),
      clock: () => clock.now(),
      ...(openclawApiKey && {
        // A getter: the base URL is known only once the server listens, and each run reads it then.
        submit: {
          get server() {
            return baseUrl();
          },
          apiKey: openclawApiKey,
        },
      }),
    });
  const adapter = openclawMemoryPath ? create(openclawMemoryPath) : null;
  const need = async (): Promise<OpenClawAdapter> => {
    if (!adapter) throw notConfigured();
    return adapter;
  };

  // Watching starts in the background so a slow or missing folder never delays the server's start.
  const started = adapter
    ?.then((a) => a.start())
    .then(
      () => logger.info({ memory_path: openclawMemoryPath }, 'openclaw adapter watching'),
      (err: unknown) => logger.warn({ err }, 'openclaw adapter could not start watching'),
    );

  return {
    status: async () => (await need()).status(),
    async trigger() {
      const running = await need();
      const { RunInProgressError } = await extractor!;
      try {
        return running.trigger();
      } catch (err) {
        if (err instanceof RunInProgressError)
          throw new DomainError(ERROR_CODES.CONFLICT, 'OpenClaw run already in progress');
        throw err;
      }
    },
    setConfig: async (patch) => (await need()).setConfig(patch),
    state: async () => (await need()).state(),
    async close() {
      await started;
      await (await adapter?.catch(() => undefined))?.stop();
    },
  };
}
