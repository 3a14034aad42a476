import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low } from 'lowdb';
import { JSONFile } from 'lowdb/node';
import type { OpenClawConfig } from './config.js';
import type { OpenClawStateResponse } from '@axle/sdk';

/** SPEC: OpenClawStateResponse entry. */
/** One extracted file: SPEC OpenClawStateResponse entry. */
export type StateEntry = OpenClawStateResponse['entries'][number];

interface StateData {
  entries: StateEntry[];
  /** Settings changed through setConfig survive restarts. */
  config?: Partial<OpenClawConfig>;
}

/** `~/.axle/state.json` in lowdb: which file was extracted at which content hash. */
export class StateStore {
  private db: Low<StateData> | undefined;

  constructor(readonly path: string) {}

  private async open(): Promise<Low<StateData>> {
    if (!this.db) {
      await mkdir(dirname(this.path), { recursive: true });
      const db = new Low<StateData>(new JSONFile<StateData>(this.path), { entries: [] });
      try {
        await db.read();
      } catch {
        // A corrupt state file costs one re-extraction of each file, never a crash.
        db.data = { entries: [] };
      }
      if (!Array.isArray(db.data.entries)) db.data.entries = [];
      this.db = db;
    }
    return this.db;
  }

  async entries(): Promise<StateEntry[]> {
    return [...(await this.open()).data.entries];
  }

  async get(file: string): Promise<StateEntry | undefined> {
    return (await this.open()).data.entries.find((e) => e.file === file);
  }

  async record(entry: StateEntry): Promise<void> {
    const db = await this.open();
    db.data.entries = [...db.data.entries.filter((e) => e.file !== entry.file), entry];
    await db.write();
  }

  async savedConfig(): Promise<Partial<OpenClawConfig>> {
    return { ...(await this.open()).data.config };
  }

  async saveConfig(config: Partial<OpenClawConfig>): Promise<void> {
    const db = await this.open();
    db.data.config = config;
    await db.write();
  }
}

/** SHA-256 of a file's bytes, streamed. */
export async function hashFile(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}
