import type { ProcessorTransfer } from '../payments/card-processor.js';
import type { Queryable } from '../store/queryable.js';
import { ledgerAuditStore } from '../store/ledger-audit.js';

export interface LedgerReport {
  /** Every broken invariant, described; empty when the books balance. */
  problems: string[];
  /** Spent credits of refunded or disputed purchases, owed (shown, never hidden). */
  debts: { accounts: number; unlocks: number; amount_micro: number };
  /** Processor transfers compared with the settlements (the processor's own list, when given). */
  processorTransfersChecked: number;
}

/**
 * Checks the ledger: splits, balances against their journal, withdrawals against settlements, learning
 * totals, credit unlocks against the money paid for credits; every processor transfer the server recorded, and every one in `processorTransfers` (the processor's
 * own list, when it can be asked), against one confirmed settlement; and that reversed purchases hide no debt.
 */
export async function checkLedger(q: Queryable, processorTransfers?: ProcessorTransfer[]): Promise<string[]> {
  return (await ledgerReport(q, processorTransfers)).problems;
}

export async function ledgerReport(q: Queryable, processorTransfers?: ProcessorTransfer[]): Promise<LedgerReport> {
  const problems: string[] = [];
  const report = (what: string, rows: unknown[]) => {
    for (const r of rows.slice(0, 20)) problems.push(`${what}: ${JSON.stringify(r)}`);
    if (rows.length > 20) problems.push(`${what}: ${rows.length - 20} more`);
  };
  report('unlock split does not add up to gross', await ledgerAuditStore.unbalancedUnlocks(q));
  report('balance differs from its journal', await ledgerAuditStore.balancesOffJournal(q));
  report('withdrawn differs from settlements', await ledgerAuditStore.withdrawalsOffSettlements(q));
  report('learning totals differ from its unlocks', await ledgerAuditStore.learningsOffUnlocks(q));
  report('processor transfer matches no confirmed settlement', await ledgerAuditStore.transfersOffSettlements(q));
  report('confirmed card payout without exactly one transfer', await ledgerAuditStore.settlementsOffTransfers(q));
  report('reversed purchase with credits neither taken back nor owed', await ledgerAuditStore.hiddenDebts(q));
  report(
    'earnings credited from an x402 payment that is not settled',
    await ledgerAuditStore.creditsWithoutSettlement(q),
  );
  report('settled x402 payment whose share was never credited', await ledgerAuditStore.settledNotCredited(q));
  report('x402 unlock booked at another amount than its payment authorized', await x402OffAuthorization(q));
  report(
    'credit unlocks booked above what the buyer paid for credits',
    await ledgerAuditStore.creditUnlocksAbovePurchases(q),
  );
  const t = (await ledgerAuditStore.totals(q))!;
  if (t.sold !== t.credited) problems.push(`contributor shares sold ${t.sold} differ from credited ${t.credited}`);
  if (t.moved_out !== t.moved_in)
    problems.push(`wallet balances moved out ${t.moved_out} differ from moved in ${t.moved_in}`);
  if (processorTransfers) {
    report('processor transfer matches no confirmed settlement', await unmatched(q, processorTransfers));
    report('confirmed card payout whose transfer was reversed', await reversedPayouts(q, processorTransfers));
  }
  return {
    problems,
    debts: (await ledgerAuditStore.debts(q))!,
    processorTransfersChecked: processorTransfers?.length ?? 0,
  };
}

/** x402 unlocks whose gross is not their authorization's value: the contributor was credited more or less than moved. */
async function x402OffAuthorization(q: Queryable) {
  const bad: unknown[] = [];
  for (const b of await ledgerAuditStore.x402Bookings(q)) {
    const value = (JSON.parse(b.payload ?? '{}') as { authorization?: { value?: string } }).authorization?.value;
    if (value !== undefined && Number(value) !== Number(b.gross_micro))
      bad.push({ unlock_id: b.unlock_id, gross_micro: Number(b.gross_micro), authorized_micro: Number(value) });
  }
  return bad;
}

/**
 * Transfers reversed, wholly or in part, that are still a confirmed settlement's payout: the processor took money
 * back after the server recorded it paid (reconciliation only looks at unresolved settlements), so the ledger
 * shows it withdrawn.
 */
async function reversedPayouts(q: Queryable, transfers: ProcessorTransfer[]) {
  const bad: unknown[] = [];
  for (const t of transfers) {
    if ((!t.reversed && t.amountReversedCents <= 0) || !t.settlementId) continue;
    const s = await ledgerAuditStore.settlementOf(q, t.settlementId);
    if (s?.status === 'confirmed' && s.payout_id === t.id)
      bad.push({
        transfer_id: t.id,
        settlement_id: s.id,
        amount_micro: s.amount_micro,
        reversed_cents: t.reversed ? t.amountCents : t.amountReversedCents,
      });
  }
  return bad;
}

/** The processor's transfers that are not one confirmed settlement's payout, or that pay one settlement twice. */
async function unmatched(q: Queryable, transfers: ProcessorTransfer[]) {
  const bad: unknown[] = [];
  const paid = new Map<string, string>();
  for (const t of transfers) {
    if (t.reversed) continue;
    const s = t.settlementId ? await ledgerAuditStore.settlementOf(q, t.settlementId) : undefined;
    const twice = t.settlementId ? paid.get(t.settlementId) : undefined;
    if (
      s?.rail !== 'processor' ||
      s.status !== 'confirmed' ||
      s.amount_micro !== t.amountCents * 10_000 ||
      s.payout_id !== t.id ||
      twice
    )
      bad.push({
        transfer_id: t.id,
        settlement_id: t.settlementId,
        amount_cents: t.amountCents,
        settlement: s ?? null,
        also_paid_by: twice ?? null,
      });
    if (t.settlementId) paid.set(t.settlementId, t.id);
  }
  return bad;
}
