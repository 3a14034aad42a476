import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('loadConfig: AXLE_SEARCH_WORKERS', () => {
  it('defaults to one embedding worker per core, at most 2', () => {
    expect(loadConfig({}).searchWorkers).toBe(Math.min(2, os.availableParallelism()));
  });

  it('takes a count from 1 to 16', () => {
    expect(loadConfig({ AXLE_SEARCH_WORKERS: '1' }).searchWorkers).toBe(1);
    expect(loadConfig({ AXLE_SEARCH_WORKERS: '16' }).searchWorkers).toBe(16);
  });

  it('refuses anything else with a message naming the variable', () => {
    for (const bad of ['0', '17', '1.5', 'two']) expect(() => loadConfig({ AXLE_SEARCH_WORKERS: bad })).toThrow(/Invalid configuration: AXLE_SEARCH_WORKERS/);
  });
});
