import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../src/conversation.js';
import type { Model } from '../src/model/model.js';
import { redactPersonal } from '../src/pipeline/personal.js';
import { runPipeline } from '../src/pipeline/run.js';
import { DraftQueue } from '../src/submit/queue.js';
import type { LearningDraft } from '../src/types.js';

const DRAFT: LearningDraft = {
  title: 'Ana Souza rotates the Stripe key when a deploy fails with 401',
  body:
    'Problem: the deploy failed with 401 from Stripe after the key was rolled. Root cause: the old key was still ' +
    'in the Vault path the worker reads. Fixed by asking Ana Souza to rotate the key and restarting the worker; ' +
    'Souza owns billing. Invoices go to 221B Baker Street, London NW1 6XE.',
  category: 'code-execution',
  tags: ['stripe', 'vault'],
  task_context: 'Deploying the billing worker with Jest and Redis; cc: Lars Eriksen',
  outcome: 'success',
  quality_self_assessment: { specificity: 5, actionability: 4, novelty: 4, completeness: 5 },
};

describe('redactPersonal', () => {
  it('replaces names and addresses in every field, numbered across the fields, and counts them', () => {
    const { draft, counts } = redactPersonal(DRAFT);
    expect(draft.title).toBe('[PERSON_1] rotates the Stripe key when a deploy fails with 401');
    expect(draft.body).toContain('asking [PERSON_1] to rotate the key');
    expect(draft.body).toContain('[PERSON_1] owns billing. Invoices go to [ADDRESS_1].');
    expect(draft.task_context).toBe('Deploying the billing worker with Jest and Redis; cc: [PERSON_2]');
    expect(draft.tags).toEqual(['stripe', 'vault']);
    expect(counts).toEqual({ person: 4, street_address: 1 });
    const rest = (d: LearningDraft) => ({ ...d, title: '', body: '', task_context: '' });
    expect(rest(draft)).toEqual(rest(DRAFT));
  });

  it('changes nothing the second time', () => {
    const once = redactPersonal(DRAFT).draft;
    expect(redactPersonal(once)).toEqual({ draft: once, counts: {} });
  });
});

describe('every draft is redacted before it is queued', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'axle-personal-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('by the pipeline, which keeps it: a name is no reason to drop a draft, a fast-tier finding still is', async () => {
    // The fast tier finds 221B Baker Street: that draft is dropped, as one with an email or a key is.
    const noStreet = { ...DRAFT, body: DRAFT.body.replace(' Invoices go to 221B Baker Street, London NW1 6XE.', '') };
    const model: Model = { name: 'fixed', extract: async () => [noStreet, DRAFT] };
    const conversation: Conversation = {
      source: 'plain',
      messages: [{ role: 'user', kind: 'text', text: `the billing worker fails on deploy ${'x '.repeat(80)}` }],
    };
    const result = await runPipeline(conversation, { model });
    expect(result.stats.passed_sensitivity).toBe(1);
    expect(result.errors.map((e) => e.message)).toEqual(['draft dropped: scrubber matched street_address']);
    expect(result.learnings[0]?.title).toBe('[PERSON_1] rotates the Stripe key when a deploy fails with 401');
    expect(JSON.stringify(result.learnings)).not.toMatch(/Souza|Eriksen|Baker Street/);
  });

  it('by the queue, whoever enqueues it', async () => {
    const queue = new DraftQueue(dir);
    const now = new Date(Date.UTC(2026, 10, 24));
    await queue.enqueue(DRAFT, 'claude-code', now);
    const { queued, duplicates } = await queue.enqueueNew([DRAFT], 'claude-code', now);
    expect([queued.length, duplicates]).toEqual([0, 1]);
    const [item] = await queue.list('pending');
    expect(item?.draft).toEqual(redactPersonal(DRAFT).draft);
  });
});
