import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { EmbedderBusy, EmbedderClient, EmbedderPool, EmbedderTimeout, withDeadline } from '../src/search/embedder.js';

const STALLING_WORKER = fileURLToPath(new URL('./fixtures/stand-in-embed-worker.mjs', import.meta.url));

describe('EmbedderPool load shedding', () => {
  it('refuses at once the searches past its queue bound, and serves the rest', async () => {
    // A real worker with no model loaded answers every search with an error, quickly.
    const pool = new EmbedderPool(1, undefined, 2);
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => pool.search(`query ${i}`, 10, 0)));
      const reasons = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error) : undefined));
      // One search runs on the worker, two wait, three are shed.
      expect(reasons.map((r) => r instanceof EmbedderBusy)).toEqual([false, false, false, true, true, true]);
      expect(reasons.slice(0, 3).map((r) => r?.message)).toEqual(Array(3).fill('model not loaded'));
      // Once the queue has drained, searches are accepted again.
      await expect(pool.search('later', 10, 0)).rejects.toThrow('model not loaded');
    } finally {
      await pool.close();
    }
  });

  it("queues a request's embeddings with the searches and sheds them past the same bound", async () => {
    const pool = new EmbedderPool(1, undefined, 1);
    try {
      const outcomes = await Promise.allSettled([
        pool.search('query', 10, 0),
        pool.embedQueued(['a learning', 'its chunk']),
        pool.embedQueued(['another learning']),
      ]);
      const reasons = outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error) : undefined));
      // The search runs, one embedding waits, the next is shed.
      expect(reasons.map((r) => r instanceof EmbedderBusy)).toEqual([false, false, true]);
    } finally {
      await pool.close();
    }
  });

  it('serves a request queued behind background work as soon as that work ends', async () => {
    // Background work (warming, learning vectors) goes to the worker directly; a request queued meanwhile used to
    // wait until another request arrived, however long after.
    const pool = new EmbedderPool(1);
    try {
      const background = pool.embed(['a learning being vectorised']);
      const request = pool.embedQueued(['a submission being screened']);
      await expect(background).rejects.toThrow('model not loaded');
      await expect(request).rejects.toThrow('model not loaded');
    } finally {
      await pool.close();
    }
  });

  it('serves a request before background work queued ahead of it is done, and keeps that work in order', async () => {
    // Eight texts of background work, each piece of four taking the stand-in a second: a request sent just after
    // waits for the piece in hand only, not for the eight.
    const pool = new EmbedderPool(1, () => new EmbedderClient(STALLING_WORKER));
    const direct = new EmbedderClient(STALLING_WORKER);
    try {
      await Promise.all([pool.init(), direct.init()]);
      const texts = Array.from({ length: 8 }, (_, i) => `SLOW learning ${i}`);
      const done: string[] = [];
      const background = pool.embed(texts).then((v) => {
        done.push('background');
        return v;
      });
      const request = pool.queryVector('a query').then(() => done.push('request'));
      const [vectors] = await Promise.all([background, request]);
      expect(done).toEqual(['request', 'background']);
      expect(vectors.map((v) => Array.from(v))).toEqual((await direct.embed(texts)).map((v) => Array.from(v)));
    } finally {
      await Promise.all([pool.close(), direct.close()]);
    }
  });

  it('leaves a worker free for requests while background work that spares one runs', async () => {
    const done: string[] = [];
    /** The stand-in worker, logging each piece of background work as it is answered. */
    class Logged extends EmbedderClient {
      override async embed(texts: string[]) {
        const vectors = await super.embed(texts);
        done.push('piece');
        return vectors;
      }
    }
    const pool = new EmbedderPool(2, () => new Logged(STALLING_WORKER));
    try {
      await pool.init();
      const texts = Array.from({ length: 8 }, (_, i) => `SLOW learning ${i}`);
      const firstDone = async (spareWorker: boolean) => {
        done.length = 0;
        await Promise.all([
          pool.embed(texts, { spareWorker }),
          pool.queryVector('a query').then(() => done.push('request')),
        ]);
        return done[0];
      };
      // Warming (no requests yet to serve) takes both workers; learning vectors, found later, take one.
      expect(await firstDone(false)).toBe('piece');
      expect(await firstDone(true)).toBe('request');
    } finally {
      await pool.close();
    }
  });

  it('takes a request out of the queue at its deadline, and frees its place', async () => {
    const pool = new EmbedderPool(1, () => new EmbedderClient(STALLING_WORKER), 1);
    try {
      await pool.init();
      const stuck = withDeadline(100, (signal) => pool.embedQueued(['STALL'], signal));
      await expect(stuck).rejects.toBeInstanceOf(EmbedderTimeout);
      // The worker is still stuck: the next request waits in the queue until its own deadline...
      const queued = withDeadline(100, (signal) => pool.queryVector('next', signal));
      await expect(queued).rejects.toBeInstanceOf(EmbedderTimeout);
      // ...and, having left the queue, does not hold the place of the one after it (bound 1: not EmbedderBusy).
      await expect(withDeadline(100, (signal) => pool.search('after', 5, 0, null, signal))).rejects.toBeInstanceOf(
        EmbedderTimeout,
      );
    } finally {
      await pool.close();
    }
  });
});
