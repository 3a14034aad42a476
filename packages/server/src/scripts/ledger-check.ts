// `npm run ledger:check`: verifies the revenue-share ledger in AXLE_DATA_DIR's database (splits add
// up, balances equal their journal, withdrawals equal settlements, learning totals equal unlocks)
// and prints the result as JSON. Exit 0: the books balance; 1: problems found (listed); 2: no database.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { checkLedger } from '../services/ledger-check.js';
import { Database } from '../store/db.js';

export async function ledgerCheck(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const file = path.join(loadConfig(env).dataDir, 'axle.db');
  if (!fs.existsSync(file)) {
    out(JSON.stringify({ ok: false, error: `no database at ${file}` }));
    return 2;
  }
  const db = await Database.open(file);
  try {
    const problems = await checkLedger(db);
    out(JSON.stringify({ database: file, ok: problems.length === 0, problems }));
    return problems.length === 0 ? 0 : 1;
  } finally {
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await ledgerCheck(process.env, (line) => console.log(line));
}
