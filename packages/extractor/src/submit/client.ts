import { scrubAsync } from '@axle/scrub';
import { Agent, request } from 'undici';
import type { SourceClient } from '../conversation.js';
import { redactPersonal } from '../pipeline/personal.js';
import { draftText } from '../pipeline/run.js';
import { parseCandidate } from '../pipeline/validate.js';
import { isRecord } from '../readers/line-parser.js';
import { CONTRIBUTOR_AGENT, type Clock, type LearningDraft, type Sleep, realSleep, systemClock } from '../types.js';
import type { DraftQueue, QueueItem } from './queue.js';

/** The POST /learn body for an extracted draft. Only draft fields and fixed metadata: never transcript text. */
export function learnRequestBody(draft: LearningDraft, source: SourceClient): Record<string, unknown> {
  const tag = `source:${source}`;
  return {
    title: draft.title,
    body: draft.body,
    category: draft.category,
    tags: draft.tags.includes(tag) ? draft.tags : [...draft.tags, tag],
    task_context: draft.task_context,
    outcome: draft.outcome,
    quality_self_assessment: draft.quality_self_assessment,
    submission_channel: 'extraction',
    contributor_agent: CONTRIBUTOR_AGENT,
  };
}

export interface SubmitterOptions {
  /** Server base URL, e.g. `http://localhost:8402`. */
  server: string;
  apiKey?: string;
  /** Attempts per item within one flush before it is left for the next flush. */
  maxAttempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  timeoutMs?: number;
  sleep?: Sleep;
  clock?: Clock;
  /**
   * Looked at before every request: a reason to send nothing more (the kill switch turned on, consent revoked while
   * the flush runs), or undefined. The request in flight when it turns is not called back; nothing after it goes.
   */
  halt?: () => Promise<string | undefined>;
}

export interface FlushReport {
  sent: Array<{ id: string; learning_id?: string; status?: string }>;
  rejected: Array<{ id: string; status: number; reason: string }>;
  /** Still queued: the server was unreachable, overloaded or refused the credentials. */
  pending: Array<{ id: string; attempts: number; last_error: string }>;
  /** Why the flush stopped before the end of the queue, when it did. */
  stopped?: string;
}

type Attempt =
  | { kind: 'sent'; status: number; body: Record<string, unknown> }
  | { kind: 'rejected'; status: number; reason: string }
  | { kind: 'retry'; reason: string; retryAfterMs?: number }
  | { kind: 'auth'; status: number; reason: string }
  | { kind: 'unserved'; status: number; reason: string };

/** Most bytes of an answer read (the idempotency key makes sending a draft again after a cut-off answer safe). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * Why a queued draft must not be sent, or undefined: each is scrubbed again just before it leaves, since a draft
 * may wait for days in ~/.axle/queue/pending and be changed there (by hand, by another tool) after the pipeline's
 * scrub. As in the pipeline, a draft in which anything is found is not sent; one that is sent has its person names
 * and street addresses redacted again, as the queue stores drafts.
 */
async function stillFound(item: QueueItem): Promise<string | undefined> {
  try {
    // The request shape only: a file edited in pending/ may hold other fields, or other values in these.
    const parsed = parseCandidate(item.draft);
    if ('error' in parsed) return `queued draft is malformed: ${parsed.error}`;
    item.draft = parsed.candidate as LearningDraft;
    // What is sent, not only what was extracted: the source tag too, and the enum fields, read from the file.
    const sent = learnRequestBody(item.draft, item.source);
    const text = [draftText({ ...item.draft, tags: sent.tags as string[] }), sent.category, sent.outcome].join('\n');
    const { report } = await scrubAsync(text);
    if (!report.clean)
      return `scrubber matched ${report.patterns_matched.join(', ')} when sending (changed since extraction?)`;
    // As the queue stores drafts (person names and addresses redacted): a hand edit may have added some.
    item.draft = redactPersonal(item.draft).draft;
    return undefined;
  } catch (err) {
    return `scrubber failed when sending: ${(err as Error).message}`;
  }
}

/** Statuses that will not change by sending the same draft again. 408 and 429 are transient. */
const PERMANENT = (s: number) => s >= 400 && s < 500 && s !== 401 && s !== 403 && s !== 408 && s !== 429;

function reasonOf(status: number, body: unknown): string {
  if (isRecord(body)) {
    const parts = [body.code, body.error, body.message].filter((p): p is string => typeof p === 'string');
    if (parts.length > 0) return `HTTP ${status}: ${[...new Set(parts)].join(' - ')}`;
  }
  return `HTTP ${status}`;
}

/**
 * Sends queued drafts to POST /learn. 2xx with a learning id moves an item to `done`; 400, 409 and other permanent 4xx
 * move it to `rejected` with the server's reason; network errors, timeouts, 429 and 5xx are retried
 * with exponential backoff (honouring Retry-After) and then left pending for the next flush, and the
 * flush stops so a down server is not hammered item by item. 401/403 stop the flush too: the draft is
 * fine, the credentials are not; so do 404/405 and a 2xx without a learning id: the address has no POST /learn.
 */
export class Submitter {
  private readonly sleep: Sleep;
  private readonly clock: Clock;
  private readonly dispatcher: Agent;
  private readonly timeoutMs: number;

  constructor(
    private readonly queue: DraftQueue,
    private readonly opts: SubmitterOptions,
  ) {
    this.sleep = opts.sleep ?? realSleep;
    this.clock = opts.clock ?? systemClock;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.dispatcher = new Agent({ headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  private async post(item: QueueItem): Promise<Attempt> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': item.id };
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    let status: number;
    let text: string;
    let retryAfter: string | string[] | undefined;
    try {
      const res = await request(`${this.opts.server.replace(/\/+$/, '')}/learn`, {
        method: 'POST',
        headers,
        body: JSON.stringify(learnRequestBody(item.draft, item.source)),
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = res.statusCode;
      retryAfter = res.headers['retry-after'];
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        // POST /learn answers a few hundred bytes; a server that streams on would fill the memory of a background runner.
        if (size > MAX_ANSWER_BYTES) {
          res.body.destroy();
          return { kind: 'retry', reason: `answer larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB` };
        }
        chunks.push(chunk as Buffer);
      }
      text = Buffer.concat(chunks).toString('utf8');
    } catch (err) {
      return { kind: 'retry', reason: `network: ${(err as Error).message || (err as Error).name}` };
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (status >= 200 && status < 300) {
      // POST /learn answers a stored learning with its id; another 2xx (a captive portal, a web app on the port) stored
      // nothing, and settling the draft as sent would lose it.
      if (isRecord(body) && typeof body.id === 'string' && body.id !== '') return { kind: 'sent', status, body };
      return { kind: 'unserved', status, reason: `HTTP ${status} without a learning id` };
    }
    if (status === 401 || status === 403) return { kind: 'auth', status, reason: reasonOf(status, body) };
    // No such route: the address answers but is not an Axle server with POST /learn, which judged nothing.
    if (status === 404 || status === 405) return { kind: 'unserved', status, reason: reasonOf(status, body) };
    if (PERMANENT(status)) return { kind: 'rejected', status, reason: reasonOf(status, body) };
    const seconds = typeof retryAfter === 'string' ? Number(retryAfter) : Number.NaN;
    const a: Attempt = { kind: 'retry', reason: reasonOf(status, body) };
    if (Number.isFinite(seconds) && seconds >= 0) a.retryAfterMs = seconds * 1000;
    return a;
  }

  private delay(attempt: number, retryAfterMs?: number): number {
    const max = this.opts.maxDelayMs ?? 30_000;
    const backoff = (this.opts.baseDelayMs ?? 500) * 2 ** (attempt - 1);
    return Math.min(max, Math.max(backoff, retryAfterMs ?? 0));
  }

  /** Sends the pending drafts (with `only`, just those ids), first in, first out. */
  async flush(only?: ReadonlySet<string>): Promise<FlushReport> {
    const report: FlushReport = { sent: [], rejected: [], pending: [] };
    const maxAttempts = this.opts.maxAttempts ?? 4;
    const items = (await this.queue.list('pending')).filter((i) => !only || only.has(i.id));
    const halted = (index: number, reason: string): FlushReport => {
      report.stopped = reason;
      for (const rest of items.slice(index)) {
        report.pending.push({ id: rest.id, attempts: rest.attempts, last_error: rest.last_error ?? 'not attempted' });
      }
      return report;
    };
    for (let index = 0; index < items.length; index++) {
      const item = items[index] as QueueItem;
      const haltBefore = await this.opts.halt?.();
      if (haltBefore) return halted(index, haltBefore);
      const unclean = await stillFound(item);
      if (unclean) {
        item.outcome = { status: 0, reason: unclean };
        await this.queue.settle(item, 'rejected');
        report.rejected.push({ id: item.id, status: 0, reason: unclean });
        continue;
      }
      let last: Attempt | undefined;
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        if (attempt > 1) {
          const haltRetry = await this.opts.halt?.();
          if (haltRetry) return halted(index, haltRetry);
        }
        item.attempts++;
        last = await this.post(item);
        if (last.kind !== 'retry') break;
        item.last_error = last.reason;
        await this.queue.update(item);
        if (attempt < maxAttempts) await this.sleep(this.delay(attempt, last.retryAfterMs));
      }
      if (!last) break;
      if (last.kind === 'sent') {
        const b = last.body;
        item.outcome = { status: last.status };
        if (typeof b.id === 'string') item.outcome.learning_id = b.id;
        if (typeof b.status === 'string') item.outcome.learning_status = b.status;
        if (Array.isArray(b.review_reason))
          item.outcome.review_reason = b.review_reason.filter((r): r is string => typeof r === 'string');
        delete item.last_error;
        await this.queue.settle(item, 'done');
        const sent: FlushReport['sent'][number] = { id: item.id };
        if (item.outcome.learning_id) sent.learning_id = item.outcome.learning_id;
        if (item.outcome.learning_status) sent.status = item.outcome.learning_status;
        report.sent.push(sent);
        continue;
      }
      if (last.kind === 'rejected') {
        item.outcome = { status: last.status, reason: last.reason };
        await this.queue.settle(item, 'rejected');
        report.rejected.push({ id: item.id, status: last.status, reason: last.reason });
        continue;
      }
      // retry exhausted, auth refused or no POST /learn there: this item and everything after it stay queued
      item.last_error = last.reason;
      await this.queue.update(item);
      return halted(
        index,
        last.kind === 'auth'
          ? `credentials refused (${last.reason})`
          : last.kind === 'unserved'
            ? `no POST /learn at ${this.opts.server} (${last.reason})`
            : `server unavailable (${last.reason})`,
      );
    }
    return report;
  }

  /**
   * Queues the drafts of a run that are new (see DraftQueue.enqueueNew) and sends those: a person who said yes to
   * these drafts did not say yes to others waiting in the queue (left by the runner, perhaps before consent was
   * withdrawn). They stay for the flush that sends them.
   */
  async submit(drafts: LearningDraft[], source: SourceClient): Promise<FlushReport & { duplicates: number }> {
    const { queued, duplicates } = await this.queue.enqueueNew(drafts, source, new Date(this.clock()));
    return { ...(await this.flush(new Set(queued.map((q) => q.id)))), duplicates };
  }
}
