/** Contributor share in percent (the spec's 70% direct, 60% discovery-driven). Integer, so splits stay exact. */
export const CONTRIBUTOR_PERCENT = { direct: 70, discovery: 60 } as const;

export interface SplitInput {
  /** What the buyer paid, integer micro-USDC. */
  paidMicro: number;
  /** The same account's POST /knowledge surfaced the learning within the discovery window. */
  discovery: boolean;
  /** The buyer is, or claims to be, the contributor: the contributor's accrual is zeroed. */
  selfDealing: boolean;
}

export interface Split {
  grossMicro: number;
  contributorMicro: number;
  platformMicro: number;
  percent: number;
}

/**
 * Splits one payment between contributor and platform in integer micro-USDC. The contributor's
 * share rounds down and the platform takes the remainder, so contributor + platform = paid exactly.
 */
export function splitRevenue({ paidMicro, discovery, selfDealing }: SplitInput): Split {
  if (!Number.isSafeInteger(paidMicro) || paidMicro < 0)
    throw new RangeError(`paidMicro must be a non-negative integer: ${paidMicro}`);
  const percent = selfDealing ? 0 : discovery ? CONTRIBUTOR_PERCENT.discovery : CONTRIBUTOR_PERCENT.direct;
  const contributorMicro = Math.floor((paidMicro * percent) / 100);
  return { grossMicro: paidMicro, contributorMicro, platformMicro: paidMicro - contributorMicro, percent };
}
