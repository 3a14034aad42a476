// A data dir holding a generated catalog as one build imports it, with a seeded random unit vector for every
// skill under the text hash that build expects (computing real vectors for 20,000 skills takes many minutes;
// the scan, fusion and rerank cost the same whatever the vectors hold). Used by search-cost.js and rss-timeline.js.
import path from 'node:path';
import { Database } from '../../packages/server/dist/store/db.js';
import { prng } from './generate.js';
import { startServer } from './server.js';

export async function prepareSeeded(dataDir, main, catalogFile) {
  const env = { AXLE_CATALOG: catalogFile, AXLE_SEMANTIC_SEARCH: 'off' };
  const server = await startServer({ dataDir, env, main, timeoutMs: 120_000 });
  await server.stop();
  const text = await import(path.join(path.dirname(main), 'search/embedding-text.js'));
  const db = await Database.open(path.join(dataDir, 'axle.db'));
  const rand = prng(7);
  const skills = (await db.all('SELECT id, data FROM skills')).map((r) => ({ id: r.id, ...JSON.parse(r.data) }));
  await db.tx(async (q) => {
    for (const s of skills) {
      const v = text.normalize(Float32Array.from({ length: text.EMBEDDING_DIM }, () => rand() - 0.5));
      await q.run('INSERT INTO skill_embeddings (skill_id, model, text_hash, vector) VALUES (?, ?, ?, ?)', [
        s.id,
        text.EMBEDDING_MODEL,
        text.textHash(text.embeddingText(s)),
        Buffer.from(v.buffer),
      ]);
    }
  });
  await db.close();
  return dataDir;
}
