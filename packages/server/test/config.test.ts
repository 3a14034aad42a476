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
    for (const bad of ['0', '17', '1.5', 'two'])
      expect(() => loadConfig({ AXLE_SEARCH_WORKERS: bad })).toThrow(/Invalid configuration: AXLE_SEARCH_WORKERS/);
  });
});

describe('connection limits and the search queue bound', () => {
  it('default to values suited to a public server', () => {
    const config = loadConfig({});
    expect(config.connections).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1_000,
    });
    expect(config.searchQueueMax).toBe(16);
    expect(config.modelWaitMs).toBe(2000);
    expect(config.smtpTimeoutMs).toBe(10_000);
  });

  it('take other values and refuse nonsense, naming the variable', () => {
    const config = loadConfig({
      AXLE_HEADERS_TIMEOUT_MS: '2000',
      AXLE_MAX_CONNECTIONS: '50',
      AXLE_SEARCH_QUEUE_MAX: '0',
      AXLE_MODEL_WAIT_MS: '500',
      AXLE_SMTP_TIMEOUT_MS: '3000',
    });
    expect(config.connections).toMatchObject({ headersTimeoutMs: 2000, maxConnections: 50 });
    expect(config.searchQueueMax).toBe(0);
    expect(config).toMatchObject({ modelWaitMs: 500, smtpTimeoutMs: 3000 });
    for (const [name, bad] of [
      ['AXLE_MAX_CONNECTIONS', '0'],
      ['AXLE_KEEP_ALIVE_TIMEOUT_MS', 'soon'],
      ['AXLE_SEARCH_QUEUE_MAX', '-1'],
      ['AXLE_MODEL_WAIT_MS', '0'],
      ['AXLE_SMTP_TIMEOUT_MS', 'forever'],
      ['AXLE_REGISTRY_SYNC_URL', 'file:///etc/passwd'],
      ['AXLE_REGISTRY_SYNC_URL', 'registry.example'],
      ['AXLE_REGISTRY_SYNC_URL', 'https://user:secret@registry.example'],
    ]) {
      expect(() => loadConfig({ [name!]: bad })).toThrow(new RegExp(`Invalid configuration: ${name}`));
    }
    expect(() => loadConfig({ AXLE_REGISTRY_SYNC_URL: 'https://user:secret@registry.example' })).toThrow(
      /AXLE_REGISTRY_SYNC_URL: must not hold a user name or password/,
    );
    expect(loadConfig({ AXLE_REGISTRY_SYNC_URL: 'https://registry.example/' }).registrySyncUrl).toBe(
      'https://registry.example/',
    );
    expect(() => loadConfig({ AXLE_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      /AXLE_HEADERS_TIMEOUT_MS: must not exceed AXLE_REQUEST_TIMEOUT_MS/,
    );
  });
});

describe('x402 settlement', () => {
  const key = `0x${'ab'.repeat(32)}`;
  it('takes an RPC URL and a settlement key together, and the receipt wait', () => {
    const c = loadConfig({
      AXLE_RPC_URL: 'http://127.0.0.1:8545',
      AXLE_SETTLEMENT_KEY: key,
      AXLE_SETTLEMENT_WAIT_MS: '5000',
    });
    expect(c).toMatchObject({ rpcUrl: 'http://127.0.0.1:8545', settlementKey: key, settlementWaitMs: 5000 });
    expect(loadConfig({}).settlementWaitMs).toBe(20_000);
  });

  it('refuses a key without a chain, a malformed key and an unbounded wait, naming the variable', () => {
    expect(() => loadConfig({ AXLE_SETTLEMENT_KEY: key })).toThrow(/AXLE_SETTLEMENT_KEY: needs AXLE_RPC_URL/);
    expect(() => loadConfig({ AXLE_RPC_URL: 'http://127.0.0.1:8545', AXLE_SETTLEMENT_KEY: '0x1234' })).toThrow(
      /Invalid configuration: AXLE_SETTLEMENT_KEY/,
    );
    expect(() => loadConfig({ AXLE_SETTLEMENT_WAIT_MS: '600000' })).toThrow(/AXLE_SETTLEMENT_WAIT_MS/);
    expect(() => loadConfig({ AXLE_RPC_URL: 'not a url' })).toThrow(/AXLE_RPC_URL/);
  });
});
