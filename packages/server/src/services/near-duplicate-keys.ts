import { hasUnspacedScript } from '@axle/sdk/similarity';
import { bandKeysOf, shingles } from '../domain/similarity.js';
import type { Logger } from '../logger.js';
import { learningsStore } from '../store/learnings.js';
import type { Transactor } from '../store/queryable.js';
import type { Job } from './jobs.js';
import { similarityText } from './learn.js';

const HOUR_MS = 3_600_000;
/** Learnings read per transaction. */
export const REBUILD_BATCH = 500;

/**
 * Rebuilds the near-duplicate band keys of stored learnings once, after migration 410: those with letters of a
 * script written without spaces got new words (sdk similarity.ts), so the keys they were filed under no longer
 * match a new submission's. Each batch and its progress commit together, so a run stopped anywhere resumes where
 * it stood; rewriting a learning's keys twice writes the same keys. Runs at start and hourly until done.
 */
export function nearDuplicateKeysJob(db: Transactor, logger: Logger, batch = REBUILD_BATCH): Job {
  return {
    name: 'near-duplicate-keys',
    intervalMs: HOUR_MS,
    outside: true,
    async run() {
      let rebuilt = 0;
      for (;;) {
        const done = await db.tx(async (q) => {
          const after = await learningsStore.bandKeysRebuildAfter(q);
          if (after === undefined) return true;
          const rows = await learningsStore.textsAfter(q, after, batch);
          for (const l of rows) {
            const text = similarityText(l.title, l.body);
            if (!hasUnspacedScript(text)) continue;
            await learningsStore.replaceBandKeys(q, l.id, bandKeysOf(shingles(text)));
            rebuilt++;
          }
          await learningsStore.setBandKeysRebuildAfter(q, rows.length < batch ? undefined : rows.at(-1)!.id);
          return rows.length < batch;
        });
        if (done) break;
      }
      if (rebuilt > 0) logger.info({ rebuilt }, 'near-duplicate keys rebuilt');
    },
  };
}
