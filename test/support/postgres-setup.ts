// globalSetup of the test project that runs the store and service tests on PostgreSQL: one throwaway
// database for the run (every test server or store gets a schema of its own in it), dropped at the end.
import type { TestProject } from 'vitest/node';
import { type TestPostgres, testPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string; tag: string } | null;
  }
}

let pg: TestPostgres | undefined;

export async function setup(project: TestProject): Promise<void> {
  pg = await testPostgres();
  project.provide('postgres', pg ? { url: pg.url, tag: pg.tag } : null);
}

export async function teardown(): Promise<void> {
  await pg?.close();
}
