import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
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
  'withdrawal-attacks',
  'wallets',
  'x402',
  'device',
  'jobs',
  'registry-sync',
  'checkout',
  'money-guards',
  'cluster',
  'migrate-to-postgres',
  'changes',
  'database-failure',
  'shared-secret',
  'http-fuzz',
].map((name) => `packages/server/test/${name}.test.ts`);

/**
 * Files that run in a process of their own: they replace modules (vi.doMock) or bound how long something takes, which
 * another file's leftover work in a shared process could stretch. Every other file shares its worker's loaded modules
 * with the files before it (isolate off), so the server's sources load once per worker instead of once per file.
 */
const OWN_PROCESS = [
  'packages/cli/test/hook.test.ts',
  'packages/server/test/{connections,mail-failure,model-deadlines,x402-extensions}.test.ts',
  'packages/server/test/domain-screens-catalog{,-languages,-semantic}.test.ts',
];

const postgres = await postgresReachable();
if (!postgres) console.warn(POSTGRES_MISSING);

export default defineConfig({
  resolve: {
    // Unit tests run against sources; end-to-end tests spawn the built packages.
    // Subpaths come first: the package's own entry would otherwise also claim them.
    alias: {
      '@axle/sdk/mcp': fileURLToPath(new URL('./packages/sdk/src/mcp/index.ts', import.meta.url)),
      '@axle/sdk/client': fileURLToPath(new URL('./packages/sdk/src/client.ts', import.meta.url)),
      '@axle/sdk/similarity': fileURLToPath(new URL('./packages/sdk/src/similarity.ts', import.meta.url)),
      '@axle/extractor/paths': fileURLToPath(new URL('./packages/extractor/src/paths.ts', import.meta.url)),
      '@axle/extractor/kill-switch': fileURLToPath(
        new URL('./packages/extractor/src/daemon/kill-switch.ts', import.meta.url),
      ),
      '@axle/extractor/replace-file': fileURLToPath(
        new URL('./packages/extractor/src/replace-file.ts', import.meta.url),
      ),
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
    // Vitest's default is one file at a time on 2 cores (cores - 1). Many files spend their time waiting on
    // processes they spawn (CLI runs, server processes, npm, Chromium, tmux), so half again as many files
    // as cores keeps both cores busy.
    maxWorkers: Math.max(2, Math.ceil(os.availableParallelism() * 1.5)),
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS],
          globalSetup: ['test/support/sqlite-setup.ts'],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'sqlite-own', include: OWN_PROCESS, globalSetup: ['test/support/sqlite-setup.ts'] },
      },
      ...(postgres
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: ON_BOTH_BACKENDS,
                globalSetup: ['test/support/postgres-setup.ts'],
                env: { AXLE_TEST_BACKEND: 'postgres' },
                isolate: false,
              },
            },
          ]
        : []),
    ],
  },
});
