// `npm run catalog:vectors` (after `npm run catalog`): embeds every skill of the bundled catalog
// (or of the catalog file given as the first argument) and writes the compact precomputed file
// that the server loads on first start instead of computing (see vector-file.ts).
// Usage: node packages/server/dist/search/build-vectors.js [catalog.json] [out.bin]
import fs from 'node:fs';
import { loadCatalog } from '../catalog/load.js';
import { EmbedderClient } from './embedder.js';
import { EMBEDDING_DIM, EMBEDDING_MODEL, embeddingText, textHash } from './embedding-text.js';
import { skillPassages } from './passages.js';
import { BUNDLED_VECTORS, encodeVectors, storedEntries } from './vector-file.js';

const [catalogFile, out = BUNDLED_VECTORS] = process.argv.slice(2);
const skills = loadCatalog(catalogFile);
// Each skill's embedded text, and its passages (tools, sentences) that search reranks by.
const all = [...new Set(skills.flatMap((s) => [embeddingText(s), ...skillPassages(s)]))];
// Vectors of texts the existing file already holds are kept as stored (codes and scale copied, so a run
// with nothing to embed writes the same file); only new or changed texts are embedded.
const hashes = all.map(textHash);
const { kept, entries } = storedEntries(out, EMBEDDING_MODEL, hashes);
const texts = all.filter((_, i) => !kept.has(i));
process.stderr.write(`${entries.length} vectors kept from ${out}, ${texts.length} to embed\n`);
const embedder = new EmbedderClient();
const started = performance.now();
try {
  await embedder.init();
  for (let i = 0; i < texts.length; i += 32) {
    const batch = texts.slice(i, i + 32);
    const vectors = await embedder.embed(batch);
    for (const [j, t] of batch.entries()) entries.push({ hash: textHash(t), vector: vectors[j]! });
    process.stderr.write(`\r${entries.length}/${all.length}`);
  }
  const buf = encodeVectors(EMBEDDING_MODEL, EMBEDDING_DIM, entries);
  fs.writeFileSync(out, buf);
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  process.stderr.write(`\n${entries.length} vectors in ${secs} s -> ${out} (${(buf.length / 1024).toFixed(0)} KiB)\n`);
} finally {
  await embedder.close();
}
