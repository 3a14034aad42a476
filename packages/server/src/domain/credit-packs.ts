import type { CreditPack } from '@axle/sdk';

/**
 * The three card-bought packs. An unlock credit costs $0.100, $0.083 and $0.067 in them, so
 * larger packs are cheaper per unlock; each unlock credit comes with ten query credits. Credits never expire.
 */
export const CREDIT_PACKS: readonly CreditPack[] = [
  { id: 'starter', name: 'Starter', price_usd: 10, queries: 1_000, unlocks: 100 },
  { id: 'growth', name: 'Growth', price_usd: 25, queries: 3_000, unlocks: 300 },
  { id: 'pro', name: 'Pro', price_usd: 100, queries: 15_000, unlocks: 1_500 },
];

export const creditPack = (id: string): CreditPack | undefined => CREDIT_PACKS.find((p) => p.id === id);
