import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { POSTGRES_MISSING, postgresReachable } from './test/support/postgres.js';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

/** Store and service tests that run a second time on PostgreSQL (test/support/backend.ts picks the database). */
const ON_BOTH_BACKENDS = [
  'store',
  'ledger',
  'audit',
  'account-limits',
  'terms',
  'unlock',
  'learn',
  'knowledge',
  'review',
  'discover',
  'withdrawals',
  'x402',
  'device',
  'jobs',
  'registry-sync',
  'checkout',
  'money-guards',
  'cluster',
  'migrate-to-postgres',
].map((name) => `packages/server/test/${name}.test.ts`);

const postgres = await postgresReachable();
if (!postgres) console.warn(POSTGRES_MISSING);

export default defineConfig({
  resolve: {
    // Unit tests run against sources; end-to-end tests spawn the built packages.
    // '@axle/sdk/mcp' comes first: the '@axle/sdk' entry would otherwise also claim its subpath.
    alias: {
      '@axle/sdk/mcp': fileURLToPath(new URL('./packages/sdk/src/mcp/index.ts', import.meta.url)),
      '@axle/sdk': src('sdk'),
      '@axle/scrub': src('scrub'),
      '@axle/extractor': src('extractor'),
      '@axle/server': src('server'),
    },
  },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'] } },
      ...(postgres
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: ON_BOTH_BACKENDS,
                globalSetup: ['test/support/postgres-setup.ts'],
                env: { AXLE_TEST_BACKEND: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});
