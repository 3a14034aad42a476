import { OpenClawConfig, OpenClawConfigPatch } from '@axle/sdk';

export type { OpenClawConfig, OpenClawConfigPatch };

/** The spec's defaults, taken from the contract schema so the server and the daemon cannot disagree. */
export const DEFAULT_OPENCLAW_CONFIG: Readonly<OpenClawConfig> = Object.freeze(OpenClawConfig.parse({}));

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates a partial config: only the spec's fields, each of the right type. Throws ConfigError otherwise. */
export function parseConfigPatch(input: unknown): OpenClawConfigPatch {
  const parsed = OpenClawConfigPatch.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigError(issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message);
}
