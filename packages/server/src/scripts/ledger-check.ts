// `npm run ledger:check`: verifies the revenue-share ledger in AXLE_DATA_DIR's database (splits add
// up, balances equal their journal, withdrawals equal settlements, learning totals equal unlocks, no share
// credited from an unsettled x402 payment, every processor transfer matches one confirmed settlement, reversed
// purchases hide no debt) and prints the result as JSON with the debts owed. With AXLE_PROCESSOR_SECRET_KEY set,
// the processor's own list of transfers is checked too. Exit 0: the books balance; 1: problems found (listed);
// 2: no database (none there, unreachable, or a configuration that does not load) or processor unreachable.
import { pathToFileURL } from 'node:url';
import { microToUsd } from '@axle/sdk';
import { type ProcessorTransfer, stripeProcessor } from '../payments/card-processor.js';
import { ledgerReport } from '../services/ledger-check.js';
import { runCommand, withDataDirDatabase } from './data-dir-database.js';

/** Transfers read from the processor at most (newest first). */
const MAX_PROCESSOR_TRANSFERS = 100_000;

export async function ledgerCheck(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  return withDataDirDatabase(env, out, async (db, file, config) => {
    let transfers: ProcessorTransfer[] | undefined;
    if (config.processorSecretKey) {
      const processor = await stripeProcessor({
        secretKey: config.processorSecretKey,
        apiUrl: config.processorApiUrl,
        timeoutMs: config.processorTimeoutMs,
      });
      try {
        transfers = await processor.allTransfers(MAX_PROCESSOR_TRANSFERS);
      } catch (err) {
        out(JSON.stringify({ database: file, ok: false, error: (err as Error).message }));
        return 2;
      }
    }
    const r = await ledgerReport(db, transfers);
    out(
      JSON.stringify({
        database: file,
        ok: r.problems.length === 0,
        problems: r.problems,
        debts: { accounts: r.debts.accounts, unlocks: r.debts.unlocks, amount_usd: microToUsd(r.debts.amount_micro) },
        processor_transfers_checked: transfers ? r.processorTransfersChecked : null,
      }),
    );
    return r.problems.length === 0 ? 0 : 1;
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const out = (line: string) => console.log(line);
  process.exitCode = await runCommand(out, () => ledgerCheck(process.env, out));
}
