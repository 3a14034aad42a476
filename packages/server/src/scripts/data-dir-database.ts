// Opens the database in AXLE_DATA_DIR for a command-line check and closes it afterwards. Without a
// database it prints {ok: false, error} and answers exit code 2; otherwise `check`'s exit code.
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.js';
import { Database } from '../store/db.js';

export async function withDataDirDatabase(
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  check: (db: Database, file: string) => Promise<number>,
): Promise<number> {
  const file = path.join(loadConfig(env).dataDir, 'axle.db');
  if (!fs.existsSync(file)) {
    out(JSON.stringify({ ok: false, error: `no database at ${file}` }));
    return 2;
  }
  const db = await Database.open(file);
  try {
    return await check(db, file);
  } finally {
    await db.close();
  }
}
