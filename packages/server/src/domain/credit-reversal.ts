/** A purchase as far as reversing it cares. */
export interface Reversible {
  amountCents: number;
  unlocksAdded: number;
  queriesAdded: number;
  /** Already applied: the cents refunded and disputed so far and the credits taken back or owed for them. */
  reversedCents: number;
  reversedUnlocks: number;
  reversedQueries: number;
}

/**
 * What `reversedCents`, refunded and disputed in all, newly takes back: the purchase's credits in proportion to
 * the money reversed (at most its price), rounded up (a refund never leaves a fraction of a credit paid for by
 * nobody), less what earlier reversals already took. A smaller or equal amount than one already applied (a
 * replay, a dispute after a full refund) takes nothing.
 */
export function reversalDue(p: Reversible, reversedCents: number): { cents: number; unlocks: number; queries: number } {
  const cents = Math.min(Math.max(Math.trunc(reversedCents), 0), p.amountCents);
  if (cents <= p.reversedCents || p.amountCents <= 0) return { cents: p.reversedCents, unlocks: 0, queries: 0 };
  const share = (n: number) => Math.ceil((n * cents) / p.amountCents);
  return {
    cents,
    unlocks: Math.max(0, share(p.unlocksAdded) - p.reversedUnlocks),
    queries: Math.max(0, share(p.queriesAdded) - p.reversedQueries),
  };
}

/**
 * What lowering the money reversed to `reversedCents` (a won dispute's money returned) gives back: the credits
 * taken back or owed beyond the share the remaining reversal takes (rounded up, as `reversalDue` takes it). A
 * larger or equal amount than the one applied gives nothing.
 */
export function restorationDue(
  p: Reversible,
  reversedCents: number,
): { cents: number; unlocks: number; queries: number } {
  const cents = Math.min(Math.max(Math.trunc(reversedCents), 0), p.amountCents);
  if (cents >= p.reversedCents || p.amountCents <= 0) return { cents: p.reversedCents, unlocks: 0, queries: 0 };
  const share = (n: number) => Math.ceil((n * cents) / p.amountCents);
  return {
    cents,
    unlocks: Math.max(0, p.reversedUnlocks - share(p.unlocksAdded)),
    queries: Math.max(0, p.reversedQueries - share(p.queriesAdded)),
  };
}
