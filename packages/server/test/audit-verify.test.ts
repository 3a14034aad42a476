import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditVerify } from '../src/scripts/audit-verify.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { bearer, post, type Smtp, signIn, startSmtp } from '../../../test/support/identity.js';

// The compiled script `npm run audit:verify` runs (npm test builds first via pretest).
const SCRIPT = fileURLToPath(new URL('../dist/scripts/audit-verify.js', import.meta.url));
const run = promisify(execFile);

const READ = 'read-token-for-audit-tests';

describe('audit verification: GET /admin/audit/verify and npm run audit:verify', () => {
  let smtp: Smtp;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({
      AXLE_SMTP_URL: smtp.url,
      AXLE_ADMIN_READ_TOKEN: READ,
      AXLE_ADMIN_TOKEN: 'admin-token-for-audit-tests',
    });
    // Five real audited actions: consent grant, revoke, grant, revoke, grant.
    const jwt = await signIn(server, smtp, 'audited@example.com');
    for (const action of ['grant', 'revoke', 'grant', 'revoke', 'grant']) {
      expect((await post(server, '/extract/consent', { action }, bearer(jwt))).status).toBe(200);
    }
  });
  afterAll(async () => {
    await server.stop();
    await smtp.close();
  });

  const verify = (token?: string) => fetch(`${server.url}/admin/audit/verify`, { headers: token ? bearer(token) : {} });
  const script = async () => {
    const lines: string[] = [];
    const code = await auditVerify({ AXLE_DATA_DIR: server.dataDir }, (l) => lines.push(l));
    return { code, result: JSON.parse(lines.join('')) };
  };
  /** Runs the built script as `npm run audit:verify` does; resolves with its exit code and JSON output. */
  const compiled = async () => {
    expect(fs.existsSync(SCRIPT), `${SCRIPT} missing: run npx tsc -b first`).toBe(true);
    try {
      const { stdout } = await run(process.execPath, [SCRIPT], {
        env: { ...process.env, AXLE_DATA_DIR: server.dataDir },
      });
      return { code: 0, result: JSON.parse(stdout) };
    } catch (err) {
      const e = err as { code: number; stdout: string };
      return { code: e.code, result: JSON.parse(e.stdout) };
    }
  };
  const seqId = async (seq: number) =>
    (await server.db.get<{ id: string }>('SELECT id FROM audit_log WHERE seq = ?', [seq]))!.id;

  it('needs an admin token (the read token is enough)', async () => {
    expect((await verify()).status).toBe(401);
    expect((await verify('wrong')).status).toBe(401);
    const res = await verify(READ);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, checked: 5 });
  });

  it('reports an intact chain with exit 0', async () => {
    expect(await script()).toEqual({
      code: 0,
      result: { database: expect.stringContaining(server.dataDir), ok: true, checked: 5 },
    });
    expect((await compiled()).code).toBe(0);
  });

  it('catches entry 3 edited directly in SQLite', async () => {
    const id3 = await seqId(3);
    await server.db.exec('DROP TRIGGER audit_log_no_update');
    await server.db.run(
      `UPDATE audit_log SET data = '{"consent_version":"2026-11-01","via":"settings"}' WHERE seq = 3`,
    );
    const expected = { ok: false, checked: 3, first_bad: { id: id3, seq: 3, reason: 'hash_mismatch' } };
    expect(await (await verify(READ)).json()).toEqual(expected);
    expect(await script()).toEqual({ code: 1, result: { database: expect.any(String), ...expected } });
    expect(await compiled()).toEqual({ code: 1, result: { database: expect.any(String), ...expected } });
  });

  it('catches a deleted middle entry', async () => {
    // Restore a clean chain first: a fresh log whose entry 3 is then removed.
    await server.db.exec('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log;');
    const jwt = await signIn(server, smtp, 'audited@example.com');
    for (const action of ['grant', 'revoke', 'grant', 'revoke'])
      await post(server, '/extract/consent', { action }, bearer(jwt));
    // The sign-in above created no entries; the four consent calls are seq 1-4.
    expect(await (await verify(READ)).json()).toEqual({ ok: true, checked: 4 });
    const id4 = await seqId(4);
    await server.db.run('DELETE FROM audit_log WHERE seq = 3');
    const expected = { ok: false, checked: 3, first_bad: { id: id4, seq: 4, reason: 'seq_gap' } };
    expect(await (await verify(READ)).json()).toEqual(expected);
    expect((await compiled()).code).toBe(1);
  });

  it('exits 2 when there is no database to check', async () => {
    const lines: string[] = [];
    expect(await auditVerify({ AXLE_DATA_DIR: `${server.dataDir}/nowhere` }, (l) => lines.push(l))).toBe(2);
    expect(JSON.parse(lines[0]!).ok).toBe(false);
  });
});
