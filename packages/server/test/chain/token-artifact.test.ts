import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script without types
import { compileBatch, compileToken } from './build-token.mjs';
import { batch, token } from './local-chain.js';

describe('TestUSDC.json', () => {
  it('is what solc (pinned in package.json) compiles from TestUSDC.sol: rebuild with build-token.mjs', () => {
    expect(compileToken()).toEqual(token);
  }, 60_000);
});

describe('Batch.json', () => {
  it('is what solc compiles from Batch.sol: rebuild with build-token.mjs', () => {
    expect(compileBatch()).toEqual(batch);
  }, 60_000);
});
