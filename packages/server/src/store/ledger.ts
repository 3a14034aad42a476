import { newId } from '../domain/ids.js';
import { creditsStore } from './credits.js';
import { dayOf, learningsStore } from './learnings.js';
import type { Queryable } from './queryable.js';

/** Journal entry kinds and what each does to a holder's balance columns (migration 030). */
export type EntryKind = 'accrue' | 'hold' | 'release' | 'migrate_out' | 'migrate_in' | 'withdraw' | 'refund';

const EFFECTS: Record<
  EntryKind,
  { owned?: 1 | -1; held?: 1 | -1; pending?: 1 | -1; withdrawn?: 1 | -1; count?: 1 | -1 }
> = {
  accrue: { owned: 1, pending: 1 },
  hold: { held: 1 },
  release: { held: -1, owned: 1, pending: 1 },
  migrate_out: { held: -1 },
  migrate_in: { held: 1 },
  withdraw: { pending: -1, withdrawn: 1, count: 1 },
  refund: { pending: 1, withdrawn: -1, count: -1 },
};

export interface BalanceRow {
  holder: string;
  owned_micro: number;
  held_micro: number;
  pending_micro: number;
  withdrawn_micro: number;
  withdrawal_count: number;
  updated_at: number;
}

export interface UnlockRow {
  id: string;
  learning_id: string;
  buyer: string;
  path: 'key' | 'x402' | 'owner';
  gross_micro: number;
  contributor_micro: number;
  platform_micro: number;
  payee: string | null;
  held: number;
  discovery: number;
  self_dealing: number;
  accrual_capped: number;
  settlement_path: string | null;
  tx_hash: string | null;
  created_at: number;
}

export interface SettlementRow {
  id: string;
  holder: string;
  wallet: string | null;
  rail: 'wallet' | 'processor';
  amount_micro: number;
  status: 'pending' | 'confirmed' | 'processing_timeout' | 'failed';
  tx_hash: string | null;
  payout_id: string | null;
  created_at: number;
  confirmed_at: number | null;
  /** Processor rail: the payout account the transfer goes to (migration 095). */
  destination: string | null;
  failure_reason: string | null;
  reconciled_at: number | null;
  /** The client's Idempotency-Key of the withdrawal request, if it sent one. */
  request_key: string | null;
  /** When a send of its payout last started (migration 270; null on older rows: created_at). */
  sent_at: number | null;
}

/** A processor transfer the server has seen (migration 095). */
export interface ProcessorTransferRow {
  transfer_id: string;
  settlement_id: string | null;
  amount_micro: number;
  destination: string;
  reversed: number;
  seen_at: number;
}

/** A learning's running unlock totals (columns of learnings). */
export interface LearningTotals {
  unlockCount: number;
  grossMicro: number;
  contributorMicro: number;
  platformMicro: number;
}

export type SettlementStatus = SettlementRow['status'];
export const UNRESOLVED: readonly SettlementStatus[] = ['pending', 'processing_timeout'];

const ZERO = (holder: string): BalanceRow => ({
  holder,
  owned_micro: 0,
  held_micro: 0,
  pending_micro: 0,
  withdrawn_micro: 0,
  withdrawal_count: 0,
  updated_at: 0,
});

export interface WalletLearningRow {
  id: string;
  title: string;
  status: string;
  unlock_count: number;
  gross_micro: number;
  contributor_micro: number;
  platform_micro: number;
  last_unlock_at: number | null;
}

/** One unlock's writes, booked together by ledgerStore.book. */
export interface Booking {
  unlock: UnlockRow;
  /** The payee's journal entry for its share (a credit), if one is posted. */
  entry: { holder: string; kind: 'accrue' | 'hold'; amountMicro: number } | null;
  /** The unlock moves demand: added to the learning's running totals and its day's demand. */
  demand: boolean;
  /** The transaction's last statement: it commits with the booking (Queryable.getLast). */
  last: boolean;
}

/** PostgreSQL: a booking as one statement (one round trip). */
const BOOK_POSTGRES = `WITH
  u AS (INSERT INTO unlocks (id, learning_id, buyer, path, gross_micro, contributor_micro, platform_micro, payee,
      held, discovery, self_dealing, accrual_capped, settlement_path, tx_hash, created_at)
    SELECT ?::text, ?::text, ?::text, ?::text, ?::bigint, ?::bigint, ?::bigint, ?::text,
      ?::bigint, ?::bigint, ?::bigint, ?::bigint, ?::text, ?::text, ?::bigint),
  e AS (INSERT INTO ledger_entries (id, holder, kind, amount_micro, ref, created_at)
    SELECT ?::text, ?::text, ?::text, ?::bigint, ?::text, ?::bigint WHERE ?::int = 1),
  b AS (INSERT INTO earnings_balances
      (holder, owned_micro, held_micro, pending_micro, withdrawn_micro, withdrawal_count, updated_at)
    SELECT ?::text, ?::bigint, ?::bigint, ?::bigint, 0, 0, ?::bigint WHERE ?::int = 1
    ON CONFLICT (holder) DO UPDATE SET owned_micro = earnings_balances.owned_micro + excluded.owned_micro,
      held_micro = earnings_balances.held_micro + excluded.held_micro,
      pending_micro = earnings_balances.pending_micro + excluded.pending_micro, updated_at = excluded.updated_at),
  t AS (UPDATE learnings SET unlock_count = unlock_count + 1, gross_micro = gross_micro + ?::bigint,
      contributor_micro = contributor_micro + ?::bigint, platform_micro = platform_micro + ?::bigint
    WHERE id = ?::text AND ?::int = 1
    RETURNING unlock_count AS "unlockCount", gross_micro AS "grossMicro",
      contributor_micro AS "contributorMicro", platform_micro AS "platformMicro"),
  d AS (INSERT INTO learning_demand (learning_id, day, unlocks) SELECT ?::text, ?::bigint, 1 WHERE ?::int = 1
    ON CONFLICT (learning_id, day) DO UPDATE SET unlocks = learning_demand.unlocks + 1)
SELECT t.* FROM (SELECT 1) AS one LEFT JOIN t ON true`;

/** SQL for unlocks, earnings_balances, ledger_entries and settlements (migration 030). */
export const ledgerStore = {
  /**
   * Books one unlock in the caller's transaction: the unlock row, the payee's journal entry and balance, the
   * learning's running totals and demand (returned as they stand after it).
   */
  async book(q: Queryable, b: Booking): Promise<{ totals?: LearningTotals }> {
    const u = b.unlock;
    if (q.dialect === 'postgres') {
      const en = b.entry;
      const effect = en ? EFFECTS[en.kind] : {};
      const delta = (sign?: 1 | -1) => (sign ?? 0) * (en?.amountMicro ?? 0);
      const posted = en && en.amountMicro > 0 ? 1 : 0;
      const read = b.last ? q.getLast.bind(q) : q.get.bind(q);
      const row = await read<Partial<LearningTotals>>(BOOK_POSTGRES, [
        u.id,
        u.learning_id,
        u.buyer,
        u.path,
        u.gross_micro,
        u.contributor_micro,
        u.platform_micro,
        u.payee,
        u.held,
        u.discovery,
        u.self_dealing,
        u.accrual_capped,
        u.settlement_path,
        u.tx_hash,
        u.created_at,
        newId('led'),
        en?.holder ?? null,
        en?.kind ?? null,
        en?.amountMicro ?? 0,
        u.id,
        u.created_at,
        posted,
        en?.holder ?? null,
        delta(effect.owned),
        delta(effect.held),
        delta(effect.pending),
        u.created_at,
        posted,
        u.gross_micro,
        u.contributor_micro,
        u.platform_micro,
        u.learning_id,
        b.demand ? 1 : 0,
        u.learning_id,
        dayOf(u.created_at),
        b.demand ? 1 : 0,
      ]);
      if (!b.demand || row?.unlockCount == null) return {};
      const { unlockCount, grossMicro, contributorMicro, platformMicro } = row as LearningTotals;
      return { totals: { unlockCount, grossMicro, contributorMicro, platformMicro } };
    }
    // SQLite has one writer: the statements run in turn.
    await ledgerStore.insertUnlock(q, u);
    if (b.entry) await ledgerStore.post(q, b.entry.holder, b.entry.kind, b.entry.amountMicro, u.id, u.created_at);
    if (!b.demand) return {};
    const totals = await ledgerStore.creditLearning(q, u.learning_id, {
      grossMicro: u.gross_micro,
      contributorMicro: u.contributor_micro,
      platformMicro: u.platform_micro,
    });
    await learningsStore.recordUnlock(q, u.learning_id, u.created_at);
    return { totals };
  },

  /**
   * Appends one journal entry and applies it to the holder's balance row; the balance CHECKs
   * (>= 0) make an overdraft fail and roll the caller's transaction back.
   */
  async post(
    q: Queryable,
    holder: string,
    kind: EntryKind,
    amountMicro: number,
    ref: string | null,
    now: number,
  ): Promise<void> {
    if (amountMicro <= 0) return;
    const e = EFFECTS[kind];
    const d = (sign?: 1 | -1) => (sign ?? 0) * amountMicro;
    await q.run(
      'INSERT INTO ledger_entries (id, holder, kind, amount_micro, ref, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      [newId('led'), holder, kind, amountMicro, ref, now],
    );
    const deltas = [d(e.owned), d(e.held), d(e.pending), d(e.withdrawn), e.count ?? 0];
    if (deltas.every((x) => x >= 0)) {
      // Credits only: one upsert (its proposed row passes the CHECKs).
      await q.run(
        `INSERT INTO earnings_balances
           (holder, owned_micro, held_micro, pending_micro, withdrawn_micro, withdrawal_count, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (holder) DO UPDATE SET owned_micro = earnings_balances.owned_micro + excluded.owned_micro,
           held_micro = earnings_balances.held_micro + excluded.held_micro,
           pending_micro = earnings_balances.pending_micro + excluded.pending_micro,
           withdrawn_micro = earnings_balances.withdrawn_micro + excluded.withdrawn_micro,
           withdrawal_count = earnings_balances.withdrawal_count + excluded.withdrawal_count, updated_at = excluded.updated_at`,
        [holder, ...deltas, now],
      );
      return;
    }
    // A debit: row first, then the deltas (a CHECK is tested on an upsert's proposed row before the conflict).
    await q.run('INSERT INTO earnings_balances (holder, updated_at) VALUES (?, ?) ON CONFLICT (holder) DO NOTHING', [
      holder,
      now,
    ]);
    await q.run(
      `UPDATE earnings_balances SET owned_micro = owned_micro + ?, held_micro = held_micro + ?,
         pending_micro = pending_micro + ?,
         withdrawn_micro = withdrawn_micro + ?, withdrawal_count = withdrawal_count + ?,
         updated_at = ? WHERE holder = ?`,
      [...deltas, now, holder],
    );
  },

  async balance(q: Queryable, holder: string): Promise<BalanceRow> {
    return (await q.get<BalanceRow>('SELECT * FROM earnings_balances WHERE holder = ?', [holder])) ?? ZERO(holder);
  },

  async insertUnlock(q: Queryable, row: UnlockRow): Promise<void> {
    const cols = Object.keys(row);
    await q.run(
      `INSERT INTO unlocks (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      Object.values(row),
    );
  },

  unlock(q: Queryable, id: string): Promise<UnlockRow | undefined> {
    return q.get<UnlockRow>('SELECT * FROM unlocks WHERE id = ?', [id]);
  },

  async setUnlockTx(q: Queryable, id: string, txHash: string): Promise<void> {
    await q.run('UPDATE unlocks SET tx_hash = ? WHERE id = ?', [txHash, id]);
  },

  /**
   * The buyer's latest bought unlock of the learning at or after `since`, if any. Free repeats (accrual_capped)
   * are not purchases: counting them would let each one open a new window; nor is an x402 unlock whose payment
   * failed to settle after it was served.
   */
  lastUnlock(q: Queryable, buyer: string, learningId: string, since: number): Promise<UnlockRow | undefined> {
    return q.get<UnlockRow>(
      `SELECT * FROM unlocks WHERE buyer = ? AND learning_id = ? AND created_at >= ? AND path <> 'owner'
       AND accrual_capped = 0
       AND NOT EXISTS (SELECT 1 FROM payment_claims c WHERE c.unlock_id = unlocks.id AND c.state = 'failed')
       ORDER BY created_at DESC LIMIT 1`,
      [buyer, learningId, since],
    );
  },

  /** Whether a free read of the learning by the buyer (owner recall or capped repeat) was booked at or after `since`. */
  async freeReadSince(q: Queryable, buyer: string, learningId: string, since: number): Promise<boolean> {
    const row = await q.get(
      `SELECT 1 AS found FROM unlocks WHERE buyer = ? AND learning_id = ? AND created_at >= ? AND gross_micro = 0
       AND (path = 'owner' OR accrual_capped = 1) LIMIT 1`,
      [buyer, learningId, since],
    );
    return row !== undefined;
  },

  /** Sum of buyer payments on unlocks credited to the holder. */
  async grossFor(q: Queryable, holder: string): Promise<number> {
    const row = await q.get<{ s: number | null }>('SELECT SUM(gross_micro) AS s FROM unlocks WHERE payee = ?', [
      holder,
    ]);
    return row?.s ?? 0;
  },

  /** Moves attribution of a wallet's unlocks to the account the wallet was linked to. */
  async reassignPayee(q: Queryable, from: string, to: string): Promise<void> {
    await q.run('UPDATE unlocks SET payee = ? WHERE payee = ?', [to, from]);
  },

  /** Adds an unlock to the learning's running totals (ranking and stats read them without a join); returns them. */
  async creditLearning(
    q: Queryable,
    learningId: string,
    split: { grossMicro: number; contributorMicro: number; platformMicro: number },
  ): Promise<LearningTotals | undefined> {
    return q.get<LearningTotals>(
      `UPDATE learnings SET unlock_count = unlock_count + 1, gross_micro = gross_micro + ?,
         contributor_micro = contributor_micro + ?,
         platform_micro = platform_micro + ? WHERE id = ?
       RETURNING unlock_count AS "unlockCount", gross_micro AS "grossMicro",
         contributor_micro AS "contributorMicro", platform_micro AS "platformMicro"`,
      [split.grossMicro, split.contributorMicro, split.platformMicro, learningId],
    );
  },

  async totalPlatform(q: Queryable): Promise<number> {
    const row = await q.get<{ s: number | null }>('SELECT SUM(platform_micro) AS s FROM unlocks');
    return row?.s ?? 0;
  },

  async insertSettlement(q: Queryable, row: SettlementRow): Promise<void> {
    const cols = Object.keys(row);
    await q.run(
      `INSERT INTO settlements (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
      Object.values(row),
    );
  },

  /**
   * Moves a settlement on only from one of `from` (one conditional UPDATE): of two resolutions racing
   * (a request and a reconciliation), exactly one changes it. Returns whether this one did.
   */
  async transitionSettlement(
    q: Queryable,
    id: string,
    from: readonly SettlementStatus[],
    set: Partial<Pick<SettlementRow, 'status' | 'tx_hash' | 'payout_id' | 'confirmed_at' | 'failure_reason'>>,
    /** Also only while its last send is still the one that started at this time (null: none started). */
    sentAt?: number | null,
  ): Promise<boolean> {
    const cols = Object.keys(set);
    const sent = sentAt === undefined ? [] : [sentAt ?? -1];
    const r = await q.run(
      `UPDATE settlements SET ${cols.map((c) => `${c} = ?`).join(', ')}
       WHERE id = ? AND status IN (${from.map(() => '?').join(', ')})${sent.length ? ' AND COALESCE(sent_at, -1) = ?' : ''}`,
      [...Object.values(set), id, ...from, ...sent],
    );
    return r.changes > 0;
  },

  byRequestKey(q: Queryable, holder: string, requestKey: string): Promise<SettlementRow | undefined> {
    return q.get<SettlementRow>('SELECT * FROM settlements WHERE holder = ? AND request_key = ?', [holder, requestKey]);
  },

  settlement(q: Queryable, id: string): Promise<SettlementRow | undefined> {
    return q.get<SettlementRow>('SELECT * FROM settlements WHERE id = ?', [id]);
  },

  /** Unresolved settlements, oldest first. */
  unresolved(q: Queryable, limit: number): Promise<SettlementRow[]> {
    return q.all<SettlementRow>(
      `SELECT * FROM settlements WHERE status IN ('pending', 'processing_timeout') ORDER BY created_at, id LIMIT ?`,
      [limit],
    );
  },

  /** Records that a send starts, only while the settlement is unresolved; returns whether it is. */
  async markSent(q: Queryable, id: string, now: number): Promise<boolean> {
    const r = await q.run(
      `UPDATE settlements SET sent_at = ? WHERE id = ? AND status IN (${UNRESOLVED.map(() => '?').join(', ')})`,
      [now, id, ...UNRESOLVED],
    );
    return r.changes > 0;
  },

  async markReconciled(q: Queryable, id: string, now: number): Promise<void> {
    await q.run('UPDATE settlements SET reconciled_at = ? WHERE id = ?', [now, id]);
  },

  /** Records (or refreshes) a transfer the processor reported. */
  async recordTransfer(q: Queryable, t: ProcessorTransferRow): Promise<void> {
    await q.run(
      `INSERT INTO processor_transfers (transfer_id, settlement_id, amount_micro, destination, reversed, seen_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (transfer_id) DO UPDATE SET reversed = excluded.reversed, seen_at = excluded.seen_at`,
      [t.transfer_id, t.settlement_id, t.amount_micro, t.destination, t.reversed, t.seen_at],
    );
  },

  inFlight(q: Queryable, holder: string): Promise<SettlementRow | undefined> {
    return q.get<SettlementRow>(
      "SELECT * FROM settlements WHERE holder = ? AND status IN ('pending', 'processing_timeout')",
      [holder],
    );
  },

  settlementsFor(q: Queryable, holder: string, limit: number): Promise<SettlementRow[]> {
    return q.all<SettlementRow>('SELECT * FROM settlements WHERE holder = ? ORDER BY created_at DESC, id LIMIT ?', [
      holder,
      limit,
    ]);
  },

  /** The learnings attributed to a wallet with their running totals (GET /contributor/{wallet}). */
  walletLearnings(q: Queryable, wallet: string, limit: number): Promise<WalletLearningRow[]> {
    return q.all<WalletLearningRow>(
      `SELECT l.id, l.title, l.status, l.unlock_count, l.gross_micro, l.contributor_micro, l.platform_micro,
              (SELECT MAX(u.created_at) FROM unlocks u
               WHERE u.learning_id = l.id AND u.gross_micro > 0) AS last_unlock_at
       FROM learnings l WHERE lower(l.contributor_wallet) = ? ORDER BY l.created_at DESC LIMIT ?`,
      [wallet.toLowerCase(), limit],
    );
  },
};
