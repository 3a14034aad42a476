import { createHash, randomBytes } from 'node:crypto';

/** Prefixed random ids (`acc_`, `key_`, `aud_`…): 96 random bits, hex. */
export const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Hex SHA-256: how secrets (API keys, magic-link tokens, device codes) are stored and looked up. */
export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');
