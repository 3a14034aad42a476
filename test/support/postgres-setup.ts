// globalSetup of the test project that runs the store and service tests on PostgreSQL: this run's prepared
// databases (test/support/prepared.ts), each test database made from one, all dropped at the end.
import type { TestProject } from 'vitest/node';
import { type TestPostgres, testPostgres } from './postgres.js';
import { prepareDatabase } from './prepared.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: Omit<TestPostgres, 'close'> | null;
  }
}

let pg: TestPostgres | undefined;

export async function setup(project: TestProject): Promise<void> {
  pg = await testPostgres((kind, url) => prepareDatabase(kind, '', url));
  project.provide('postgres', pg ? { url: pg.url, tag: pg.tag, prepared: pg.prepared } : null);
}

export async function teardown(): Promise<void> {
  await pg?.close();
}
