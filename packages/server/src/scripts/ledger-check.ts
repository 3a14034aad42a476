// `npm run ledger:check`: verifies the revenue-share ledger in AXLE_DATA_DIR's database (splits add
// up, balances equal their journal, withdrawals equal settlements, learning totals equal unlocks, no
// share credited from an unsettled x402 payment) and prints the result as JSON. Exit 0: the books balance; 1: problems found (listed); 2: no database.
import { pathToFileURL } from 'node:url';
import { checkLedger } from '../services/ledger-check.js';
import { withDataDirDatabase } from './data-dir-database.js';

export async function ledgerCheck(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  return withDataDirDatabase(env, out, async (db, file) => {
    const problems = await checkLedger(db);
    out(JSON.stringify({ database: file, ok: problems.length === 0, problems }));
    return problems.length === 0 ? 0 : 1;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await ledgerCheck(process.env, (line) => console.log(line));
}
