import { a2aTasksStore } from '../store/a2a-tasks.js';
import { deviceCodesStore } from '../store/device-codes.js';
import { learnRequestsStore } from '../store/learn-requests.js';
import { magicLinksStore } from '../store/magic-links.js';
import { rateLimitsStore } from '../store/rate-limits.js';
import { walletsStore } from '../store/wallets.js';
import { LEARN_REQUEST_TTL_MS } from './learn.js';
import type { Job } from './jobs.js';

const DAY_MS = 86_400_000;

/**
 * Drops rows no request can use any more: expired magic links, device codes and wallet challenges a day
 * past expiry, rate-limit windows, A2A tasks, and POST /learn's Idempotency-Key answers two days old (honoured for one).
 * Routes also sweep their own tables as they write; this covers tables whose route has gone quiet.
 */
export const retentionJob = (intervalMs: number): Job => ({
  name: 'retention',
  intervalMs,
  async run(q, now) {
    await magicLinksStore.deleteExpired(q, now);
    await deviceCodesStore.deleteExpired(q, now - DAY_MS);
    await walletsStore.deleteExpiredChallenges(q, now - DAY_MS);
    await rateLimitsStore.deleteExpired(q, '', now - DAY_MS);
    await a2aTasksStore.deleteOlderThan(q, now - DAY_MS);
    // Twice the day they are honoured: an instance whose clock runs ahead never drops one another still honours.
    await learnRequestsStore.deleteOlderThan(q, now - 2 * LEARN_REQUEST_TTL_MS);
  },
});
