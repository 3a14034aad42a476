// Instances sharing one PostgreSQL database must share their session secret: without AXLE_JWT_SECRET each one
// generates its own, and a session signed by one fails on the others. Found by an outsider running instances
// behind no sticky routing; the start now says so.
import { describe, expect, it } from 'vitest';
import { BACKEND, backendEnv } from '../../../test/support/backend.js';
import { startTestServer } from '../../../test/support/server.js';

const WARNING = 'AXLE_JWT_SECRET is not set';

describe.runIf(BACKEND === 'postgres')('a server on PostgreSQL at start', () => {
  it('warns when AXLE_JWT_SECRET is not set, and not when it is', async () => {
    const database = await backendEnv('migrated');
    for (const [env, warned] of [
      [{}, true],
      [{ AXLE_JWT_SECRET: 'x'.repeat(48) }, false],
    ] as const) {
      const server = await startTestServer({ ...database, AXLE_SEMANTIC_SEARCH: 'off', ...env });
      try {
        expect(server.logs.some((l) => l.includes(WARNING))).toBe(warned);
      } finally {
        await server.stop();
      }
    }
  });
});
