// `npm run audit:verify`: checks the hash chain of the audit log in AXLE_DATA_DIR's database and
// prints the result as JSON. Exit 0: intact; 1: tampering found (first bad entry printed); 2: no
// database to check (none there, unreachable, or a configuration that does not load).
import { pathToFileURL } from 'node:url';
import { verifyAuditChain } from '../services/audit.js';
import { runCommand, withDataDirDatabase } from './data-dir-database.js';

export async function auditVerify(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  return withDataDirDatabase(env, out, async (db, name) => {
    const result = await verifyAuditChain(db);
    out(JSON.stringify({ database: name, ...result }));
    return result.ok ? 0 : 1;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = (line: string) => console.log(line);
  process.exitCode = await runCommand(out, () => auditVerify(process.env, out));
}
