import { isRecord } from '../readers/line-parser.js';

/** SPEC: OpenClawConfig. */
export interface OpenClawConfig {
  glob_pattern: string;
  max_depth: number;
  max_file_size: number;
  max_files_per_run: number;
  min_file_size: number;
  delay_between_files_ms: number;
  auto_publish: boolean;
}

export const DEFAULT_OPENCLAW_CONFIG: Readonly<OpenClawConfig> = Object.freeze({
  glob_pattern: '**/*.md',
  max_depth: 2,
  max_file_size: 1_000_000,
  max_files_per_run: 20,
  min_file_size: 50,
  delay_between_files_ms: 2000,
  auto_publish: true,
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const INTEGER_FIELDS = ['max_depth', 'max_file_size', 'max_files_per_run', 'min_file_size', 'delay_between_files_ms'] as const;

/** Validates a partial config: only the spec's fields, each of the right type. Throws ConfigError otherwise. */
export function parseConfigPatch(input: unknown): Partial<OpenClawConfig> {
  if (!isRecord(input)) throw new ConfigError('config must be a JSON object');
  const out: Partial<OpenClawConfig> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'glob_pattern') {
      if (typeof value !== 'string' || value.trim() === '' || value.length > 200) {
        throw new ConfigError('glob_pattern must be a non-empty string of at most 200 characters');
      }
      out.glob_pattern = value;
    } else if (key === 'auto_publish') {
      if (typeof value !== 'boolean') throw new ConfigError('auto_publish must be a boolean');
      out.auto_publish = value;
    } else if ((INTEGER_FIELDS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
        throw new ConfigError(`${key} must be a non-negative integer`);
      }
      out[key as (typeof INTEGER_FIELDS)[number]] = value;
    } else {
      throw new ConfigError(`unknown config field: ${key}`);
    }
  }
  if (out.max_files_per_run === 0) throw new ConfigError('max_files_per_run must be at least 1');
  return out;
}
