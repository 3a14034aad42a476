import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/services/ledger-check.js';
import { Database } from '../src/store/db.js';
import { migrate, readMigrations } from '../src/store/migrate.js';
import { paymentClaimsStore } from '../src/store/payment-claims.js';

// An install from before migrations 090-091 upgrading: its data keeps its meaning.
let dir: string;
let db: Database;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-migrate-'));
  db = await Database.open(path.join(dir, 'axle.db'));
  await migrate(
    db,
    readMigrations().filter((m) => m.version < 90),
  );
  const learning = (id: string, override: number | null) =>
    db.run(
      `INSERT INTO learnings (id, status, category, title, body, body_hash, unlock_price_micro, base_price_micro,
         current_price_micro, override_price_micro, last_repriced_at, created_at, updated_at)
       VALUES (?, 'approved', 'storage-state', 'a title', 'a body', 'h', ?, 80000, 91000, ?, 0, 0, 0)`,
      [id, override ?? 50_000, override],
    );
  await learning('lrn_fixed', 2_500_000);
  await learning('lrn_dynamic', null);
  const unlock = (id: string, path: string, capped: number, tx: string | null) =>
    db.run(
      `INSERT INTO unlocks (id, learning_id, buyer, path, gross_micro, contributor_micro, platform_micro, payee,
         accrual_capped, settlement_path, tx_hash, created_at)
       VALUES (?, 'lrn_dynamic', '0xb', 'x402', ?, ?, ?, 'acc_c', ?, ?, ?, 0)`,
      [id, capped ? 0 : 100_000, capped ? 0 : 70_000, capped ? 0 : 30_000, capped, path, tx],
    );
  await unlock('unl_local', 'local', 0, null);
  await unlock('unl_fac', 'facilitator', 0, '0xfeed');
  await unlock('unl_cap', 'local', 1, null);
  for (const [n, u] of [
    ['0x01', 'unl_local'],
    ['0x02', 'unl_fac'],
    ['0x03', 'unl_cap'],
  ])
    await db.run(
      `INSERT INTO payment_claims (chain_id, payer, nonce, learning_id, unlock_id, created_at)
       VALUES (8453, '0xb', ?, 'lrn_dynamic', ?, 0)`,
      [n, u],
    );
  // Before 090 both paid unlocks credited their share at once.
  for (const u of ['unl_local', 'unl_fac'])
    await db.run(
      `INSERT INTO ledger_entries (id, holder, kind, amount_micro, ref, created_at) VALUES (?, 'acc_c', 'accrue', 70000, ?, 0)`,
      [`led_${u}`, u],
    );
  await db.run(
    `INSERT INTO earnings_balances (holder, owned_micro, pending_micro, updated_at) VALUES ('acc_c', 140000, 140000, 0)`,
  );
  expect(await migrate(db)).toEqual(
    readMigrations()
      .filter((m) => m.version >= 90)
      .map((m) => m.version),
  );
});
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('upgrading through migrations 090 (settlement state) and 091 (one price)', () => {
  it('a learning with a contributor price costs that price; the duplicate column is gone', async () => {
    expect(await db.all('SELECT id, current_price_micro FROM learnings ORDER BY id')).toEqual([
      { id: 'lrn_dynamic', current_price_micro: 91_000 },
      { id: 'lrn_fixed', current_price_micro: 2_500_000 },
    ]);
    const cols = await db.all<{ name: string }>("SELECT name FROM pragma_table_info('learnings')");
    expect(cols.map((c) => c.name)).not.toContain('unlock_price_micro');
  });

  it('facilitator payments are settled with their hash, repeats failed, unsettled local ones stay verified', async () => {
    expect(await db.all('SELECT nonce, state, tx_hash FROM payment_claims ORDER BY nonce')).toEqual([
      { nonce: '0x01', state: 'verified', tx_hash: null },
      { nonce: '0x02', state: 'settled', tx_hash: '0xfeed' },
      { nonce: '0x03', state: 'failed', tx_hash: null },
    ]);
  });

  it('the share credited before settlement existed is not double-counted as awaiting, and ledger:check names it', async () => {
    expect(await paymentClaimsStore.awaitingFor(db, 'acc_c')).toBe(0);
    const problems = await checkLedger(db);
    expect(problems.join('\n')).toMatch(/earnings credited from an x402 payment that is not settled.*unl_local/);
    expect(problems.join('\n')).not.toMatch(/unl_fac/);
  });
});
