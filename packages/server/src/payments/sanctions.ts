import fs from 'node:fs/promises';
import { ERROR_CODES } from '@axle/sdk';
import { DomainError } from '../domain/errors.js';

export interface SanctionsScreen {
  /** Throws 403 sanctions_blocked for a listed wallet, 503 sanctions_unavailable when the list cannot be read. */
  assertAllowed(wallet: string): Promise<void>;
}

/**
 * Screens wallets against a list file (one address per line, '#' comments). The file is re-read
 * when its modification time changes, so an operator's update applies without a restart.
 */
export function sanctionsScreen(file: string): SanctionsScreen {
  let cached: { mtimeMs: number; blocked: Set<string> } | undefined;
  async function load(): Promise<Set<string>> {
    try {
      const { mtimeMs } = await fs.stat(file);
      if (cached?.mtimeMs !== mtimeMs) {
        const text = await fs.readFile(file, 'utf8');
        const blocked = new Set(
          text
            .split('\n')
            .map((l) => l.replace(/#.*/, '').trim().toLowerCase())
            .filter(Boolean),
        );
        cached = { mtimeMs, blocked };
      }
      return cached.blocked;
    } catch {
      throw new DomainError(ERROR_CODES.SANCTIONS_UNAVAILABLE, 'sanctions screening unavailable');
    }
  }
  return {
    async assertAllowed(wallet) {
      if ((await load()).has(wallet.toLowerCase())) {
        throw new DomainError(ERROR_CODES.SANCTIONS_BLOCKED, 'This wallet is blocked by sanctions screening');
      }
    },
  };
}
