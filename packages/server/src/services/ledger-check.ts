import type { Queryable } from '../store/db.js';
import { ledgerAuditStore } from '../store/ledger-audit.js';

/** Every broken ledger invariant, described; empty when the books balance. */
export async function checkLedger(q: Queryable): Promise<string[]> {
  const problems: string[] = [];
  const report = (what: string, rows: unknown[]) => {
    for (const r of rows.slice(0, 20)) problems.push(`${what}: ${JSON.stringify(r)}`);
    if (rows.length > 20) problems.push(`${what}: ${rows.length - 20} more`);
  };
  report('unlock split does not add up to gross', await ledgerAuditStore.unbalancedUnlocks(q));
  report('balance differs from its journal', await ledgerAuditStore.balancesOffJournal(q));
  report('withdrawn differs from settlements', await ledgerAuditStore.withdrawalsOffSettlements(q));
  report('learning totals differ from its unlocks', await ledgerAuditStore.learningsOffUnlocks(q));
  report(
    'earnings credited from an x402 payment that is not settled',
    await ledgerAuditStore.creditsWithoutSettlement(q),
  );
  report('settled x402 payment whose share was never credited', await ledgerAuditStore.settledNotCredited(q));
  const t = (await ledgerAuditStore.totals(q))!;
  if (t.sold !== t.credited) problems.push(`contributor shares sold ${t.sold} differ from credited ${t.credited}`);
  if (t.moved_out !== t.moved_in)
    problems.push(`wallet balances moved out ${t.moved_out} differ from moved in ${t.moved_in}`);
  return problems;
}
