import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceClient } from '../conversation.js';
import { defaultPaths } from '../paths.js';
import { jaccard, shingles } from '@axle/sdk/similarity';
import { redactPersonal } from '../pipeline/personal.js';
import { replaceFile } from '../replace-file.js';
import type { LearningDraft } from '../types.js';

export type QueueState = 'pending' | 'done' | 'rejected';

const draftKey = (d: LearningDraft): string => `${d.title}\n${d.body}`;

/** One draft on disk. It moves pending -> done (accepted) or pending -> rejected (refused for good). */
export interface QueueItem {
  id: string;
  created_at: string;
  source: SourceClient;
  draft: LearningDraft;
  attempts: number;
  last_error?: string;
  /** done: the server's answer (id, status, review_reason); rejected: status and reason. */
  outcome?: {
    status: number;
    learning_id?: string;
    learning_status?: string;
    review_reason?: string[];
    reason?: string;
  };
}

/**
 * A directory-backed queue: `pending/`, `done/` and `rejected/`, one JSON file per draft. Files are
 * written with replaceFile, so a crash or a power loss never leaves a half-written draft; ids sort by
 * creation time, so sending is first in, first out.
 */
export class DraftQueue {
  constructor(readonly dir: string = defaultPaths().queue) {}

  private path(state: QueueState, id: string): string {
    return join(this.dir, state, `${id}.json`);
  }

  private async write(state: QueueState, item: QueueItem): Promise<void> {
    await mkdir(join(this.dir, state), { recursive: true });
    await replaceFile(this.path(state, item.id), `${JSON.stringify(item, null, 2)}\n`, 0o600);
  }

  /** Queues a draft, its person names and street addresses redacted first (`redactPersonal`), whoever made it. */
  async enqueue(draft: LearningDraft, source: SourceClient, now: Date): Promise<QueueItem> {
    const id = `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
    const { draft: redacted } = redactPersonal(draft);
    const item: QueueItem = { id, created_at: now.toISOString(), source, draft: redacted, attempts: 0 };
    await this.write('pending', item);
    return item;
  }

  async list(state: QueueState): Promise<QueueItem[]> {
    let names: string[];
    try {
      names = (await readdir(join(this.dir, state))).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const items: QueueItem[] = [];
    for (const name of names.sort()) {
      try {
        items.push(JSON.parse(await readFile(join(this.dir, state, name), 'utf8')) as QueueItem);
      } catch {
        // A file another process is renaming right now, or corrupted by hand: leave it for later.
      }
    }
    return items;
  }

  /**
   * Queues the drafts that are not near-duplicates (shingle Jaccard ≥ `threshold`, same category) of a
   * draft already queued, sent or rejected. A session file re-read after it grew yields the same
   * learnings again; they are dropped here instead of being refused one by one by the server.
   */
  async enqueueNew(
    drafts: LearningDraft[],
    source: SourceClient,
    now: Date,
    threshold = 0.85,
  ): Promise<{ queued: QueueItem[]; duplicates: number }> {
    const known: Array<{ category: string; sh: Set<string> }> = [];
    for (const state of ['pending', 'done', 'rejected'] as const) {
      for (const item of await this.list(state))
        known.push({ category: item.draft.category, sh: shingles(draftKey(item.draft)) });
    }
    const queued: QueueItem[] = [];
    let duplicates = 0;
    for (const draft of drafts) {
      // Compared as queued: redacted.
      const d = redactPersonal(draft).draft;
      const sh = shingles(draftKey(d));
      if (known.some((k) => k.category === d.category && jaccard(k.sh, sh) >= threshold)) {
        duplicates++;
        continue;
      }
      known.push({ category: d.category, sh });
      queued.push(await this.enqueue(d, source, now));
    }
    return { queued, duplicates };
  }

  /** Rewrites a pending item in place (attempt count, last error). */
  async update(item: QueueItem): Promise<void> {
    await this.write('pending', item);
  }

  /** Moves an item out of pending; written first, then removed, so it is never absent from both. */
  async settle(item: QueueItem, to: Exclude<QueueState, 'pending'>): Promise<void> {
    await this.write(to, item);
    await rm(this.path('pending', item.id), { force: true });
  }
}
