import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson, GENESIS_HASH, hashEntry } from '../src/domain/audit-chain.js';
import { appendAudit, verifyAuditChain } from '../src/services/audit.js';
import type { Transactor } from '../src/store/queryable.js';
import { BACKEND, openTestStore } from '../../../test/support/backend.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, skip: undefined })).toBe('{"a":1}');
  });
  it('gives the same hash whatever the insertion order', () => {
    const a = {
      prev_hash: GENESIS_HASH,
      id: 'aud_1',
      seq: 1,
      ts: 5,
      actor: 'system',
      action: 'x',
      subject: null,
      data: { p: 1, q: 2 },
    };
    const b = {
      data: { q: 2, p: 1 },
      subject: null,
      action: 'x',
      actor: 'system',
      ts: 5,
      seq: 1,
      id: 'aud_1',
      prev_hash: GENESIS_HASH,
    };
    expect(hashEntry(a)).toBe(hashEntry(b));
    expect(hashEntry(a)).not.toBe(hashEntry({ ...a, ts: 6 }));
  });
});

describe(`audit log (${BACKEND})`, () => {
  let store: Awaited<ReturnType<typeof openTestStore>>;
  let db: Transactor;
  beforeEach(async () => {
    store = await openTestStore();
    db = store.db;
  });
  afterEach(() => store.close());
  /** What an attacker with the database does first (PostgreSQL names the table). */
  const dropTrigger = (name: string) =>
    db.exec(BACKEND === 'postgres' ? `DROP TRIGGER ${name} ON audit_log` : `DROP TRIGGER ${name}`);

  const append5 = async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push(
        await db.tx((q) =>
          appendAudit(q, { actor: 'account:acc_1', action: 'test.step', subject: `s${i}`, data: { i } }, 1000 + i),
        ),
      );
    }
    return ids;
  };

  it('chains entries: seq 1..n, each prev_hash is the previous hash, ids are aud_', async () => {
    const ids = await append5();
    expect(ids.every((id) => /^aud_[0-9a-f]{24}$/.test(id))).toBe(true);
    const rows = await db.all<{ id: string; seq: number; prev_hash: string; hash: string }>(
      'SELECT id, seq, prev_hash, hash FROM audit_log ORDER BY seq',
    );
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows[0]!.prev_hash).toBe(GENESIS_HASH);
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 5 });
  });

  it('an empty log verifies', async () => {
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 0 });
  });

  it('rolls the entry back with the caller transaction', async () => {
    await append5();
    await expect(
      db.tx(async (q) => {
        await appendAudit(q, { actor: 'system', action: 'doomed' }, 1);
        throw new Error('caller failed');
      }),
    ).rejects.toThrow('caller failed');
    expect((await db.get<{ n: number }>('SELECT count(*) AS n FROM audit_log'))!.n).toBe(5);
    expect((await verifyAuditChain(db)).ok).toBe(true);
  });

  it('refuses UPDATE and DELETE through SQL while the triggers stand', async () => {
    await append5();
    await expect(db.run("UPDATE audit_log SET data = '{}' WHERE seq = 3")).rejects.toThrow(/append-only/);
    await expect(db.run('DELETE FROM audit_log WHERE seq = 3')).rejects.toThrow(/append-only/);
  });

  it('catches an edited entry 3 even when the attacker drops the triggers', async () => {
    const ids = await append5();
    await dropTrigger('audit_log_no_update');
    await db.run(`UPDATE audit_log SET data = '{"i":300}' WHERE seq = 3`);
    expect(await verifyAuditChain(db)).toEqual({
      ok: false,
      checked: 3,
      first_bad: { id: ids[2], seq: 3, reason: 'hash_mismatch' },
    });
  });

  it('catches an edit that also recomputes the row hash (the next link breaks)', async () => {
    const ids = await append5();
    await dropTrigger('audit_log_no_update');
    const row = (await db.get<Record<string, unknown>>('SELECT * FROM audit_log WHERE seq = 3'))!;
    const forged = {
      prev_hash: row.prev_hash as string,
      id: row.id as string,
      seq: 3,
      ts: row.ts as number,
      actor: 'admin',
      action: row.action as string,
      subject: row.subject as string,
      data: { i: 3 },
    };
    await db.run('UPDATE audit_log SET actor = ?, hash = ? WHERE seq = 3', ['admin', hashEntry(forged)]);
    expect((await verifyAuditChain(db)).first_bad).toEqual({ id: ids[3], seq: 4, reason: 'prev_hash_mismatch' });
  });

  it('catches a deleted middle entry', async () => {
    const ids = await append5();
    await dropTrigger('audit_log_no_delete');
    await db.run('DELETE FROM audit_log WHERE seq = 3');
    expect(await verifyAuditChain(db)).toEqual({
      ok: false,
      checked: 3,
      first_bad: { id: ids[3], seq: 4, reason: 'seq_gap' },
    });
  });

  it('catches data that is no longer a JSON object', async () => {
    const ids = await append5();
    await dropTrigger('audit_log_no_update');
    await db.run("UPDATE audit_log SET data = 'not json' WHERE seq = 2");
    expect((await verifyAuditChain(db)).first_bad).toEqual({ id: ids[1], seq: 2, reason: 'malformed_data' });
  });

  it('stays one chain with two processes-worth of connections appending at once', async () => {
    // A second connection pool on the same database stands in for a second server instance.
    const other = (await store.another()).db;
    try {
      const writes: Promise<string>[] = [];
      for (let i = 0; i < 20; i++) {
        writes.push(db.tx((q) => appendAudit(q, { actor: 'system', action: 'a', data: { i } }, i)));
        writes.push(other.tx((q) => appendAudit(q, { actor: 'system', action: 'b', data: { i } }, i)));
      }
      expect(new Set(await Promise.all(writes)).size).toBe(40);
    } finally {
      await other.close();
    }
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 40 });
  });

  it('appends safely when handed the database instead of a transaction', async () => {
    await Promise.all([1, 2, 3].map((i) => appendAudit(db, { actor: 'system', action: 'direct', data: { i } }, i)));
    expect(await verifyAuditChain(db)).toEqual({ ok: true, checked: 3 });
  });
});
