import { randomInt } from 'node:crypto';
import { DEVICE_AUTH } from '@axle/sdk';

const { userCodeAlphabet: ALPHABET, userCodeLength: LENGTH } = DEVICE_AUTH;
const HALF = LENGTH / 2;

/** A fresh user code in canonical (stored) form: 8 letters, no dash. 20^8 ≈ 2.6e10 possibilities. */
export function generateUserCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return code;
}

/** WDJBMJHT -> WDJB-MJHT, the form people read and type. */
export const formatUserCode = (canonical: string): string => `${canonical.slice(0, HALF)}-${canonical.slice(HALF)}`;

/**
 * What a person typed -> canonical form, or null when it cannot be a user code. Case, the dash and
 * spaces are forgiven; letters outside the alphabet are not (so lookups never hit on a typo).
 */
export function normalizeUserCode(input: string): string | null {
  const code = input.toUpperCase().replace(/[\s-]/g, '');
  if (code.length !== LENGTH) return null;
  for (const c of code) if (!ALPHABET.includes(c)) return null;
  return code;
}
