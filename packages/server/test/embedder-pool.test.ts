import { describe, expect, it } from 'vitest';
import { EmbedderBusy, EmbedderPool } from '../src/search/embedder.js';

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
});
