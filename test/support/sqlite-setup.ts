// globalSetup: the prepared SQLite databases of this run (test/support/prepared.ts), removed at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { prepareDatabase } from './prepared.js';

let dir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-prepared-'));
  const files = { migrated: '', catalog: '' };
  for (const kind of ['migrated', 'catalog'] as const) {
    const dataDir = path.join(dir, kind);
    fs.mkdirSync(dataDir);
    await prepareDatabase(kind, dataDir);
    files[kind] = path.join(dataDir, 'axle.db');
  }
  project.provide('sqlitePrepared', files);
}

export function teardown(): void {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}
