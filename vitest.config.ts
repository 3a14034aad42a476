import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    // Unit tests run against sources; end-to-end tests spawn the built packages.
    alias: {
      '@axle/sdk': src('sdk'),
      '@axle/scrub': src('scrub'),
      '@axle/extractor': src('extractor'),
      '@axle/server': src('server'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
