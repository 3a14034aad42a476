// `npm run audit:verify`: checks the hash chain of the audit log in AXLE_DATA_DIR's database and
// prints the result as JSON. Exit 0: intact; 1: tampering found (first bad entry printed); 2: no
// database to check.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../config.js';
import { verifyAuditChain } from '../services/audit.js';
import { Database } from '../store/db.js';

export async function auditVerify(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const file = path.join(loadConfig(env).dataDir, 'axle.db');
  if (!fs.existsSync(file)) {
    out(JSON.stringify({ ok: false, error: `no database at ${file}` }));
    return 2;
  }
  const db = await Database.open(file);
  try {
    const result = await verifyAuditChain(db);
    out(JSON.stringify({ database: file, ...result }));
    return result.ok ? 0 : 1;
  } finally {
    await db.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await auditVerify(process.env, (line) => console.log(line));
}
