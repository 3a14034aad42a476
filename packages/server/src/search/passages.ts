// Passages: the parts of a skill that can match a request on their own (each example, each tool, each sentence
// of a longer description, or a short description alone). Search reranks its top candidates by the best-matching
// passage, so a server whose one tool fits the request is not judged by an average of everything it does.
import type { Skill } from '@axle/sdk';
import type { QuantizedRows } from '../domain/quantize.js';
import { toolWords } from '../domain/tool-words.js';
import { Int8Index } from './int8-index.js';

/** Passages of one skill, at most: the first tools a server lists are usually its main ones. */
export const MAX_PASSAGES = 48;
const MIN_SENTENCE = 24;

/**
 * A skill's passages: its examples (requests worded as people ask them), its tools (`name words: description`), then
 * its description's sentences when it has several, or else the description itself: bare of the name, tags and
 * category the whole text adds, it says what the skill does.
 */
export function skillPassages(skill: Pick<Skill, 'description' | 'tools' | 'examples'>): string[] {
  const out = [
    ...(skill.examples ?? []),
    ...(skill.tools ?? []).map((t) => `${toolWords(t.name)}: ${t.description}`.trim()),
  ];
  const description = skill.description.trim();
  const sentences = description
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= MIN_SENTENCE);
  if (sentences.length > 1) out.push(...sentences);
  else if (description.length > 0) out.push(description);
  return [...new Set(out)].slice(0, MAX_PASSAGES);
}

/** Passage vectors in one index, a row per distinct passage text; a skill's passages are rows in it. */
export interface PassageIndex {
  index: Int8Index;
  /** Each skill's rows in `index`. */
  rowsOf: Map<string, number[]>;
}

/** A skill's passage, by its text's hash. */
export interface OwnedPassage {
  owner: string;
  hash: string;
}

/**
 * The index of `rows`, row i the vector of text hash `hashes[i]` (each hash once), for the `passages` whose hash it
 * holds. A passage several skills share (the same example, two servers' same tool) is one row: a generated or
 * synced catalog repeats many, and every row is held twice (the codes and the kernel's copy).
 */
export function passageIndex(
  hashes: readonly string[],
  rows: QuantizedRows,
  dim: number,
  passages: Iterable<OwnedPassage>,
): PassageIndex {
  const rowOf = new Map(hashes.map((h, row) => [h, row]));
  const rowsOf = new Map<string, number[]>();
  for (const { owner, hash } of passages) {
    const row = rowOf.get(hash);
    if (row === undefined) continue;
    const held = rowsOf.get(owner);
    if (held === undefined) rowsOf.set(owner, [row]);
    else if (!held.includes(row)) held.push(row);
  }
  return { index: new Int8Index(hashes, rows, dim), rowsOf };
}

/**
 * The best cosine of `vector` over each skill's passages, for the skills in `ids` that have any: only their rows
 * are scored (each once, however many of them share it), so the cost follows the candidates, not the catalog.
 */
export function bestPassageScores(p: PassageIndex, vector: Float32Array, ids: readonly string[]): Map<string, number> {
  const wanted = [...new Set(ids)].filter((id) => p.rowsOf.has(id));
  /** Row -> its place in `listed`. */
  const slot = new Map<number, number>();
  const listed: number[] = [];
  for (const id of wanted)
    for (const row of p.rowsOf.get(id)!)
      if (!slot.has(row)) {
        slot.set(row, listed.length);
        listed.push(row);
      }
  const best = new Map<string, number>();
  if (listed.length === 0) return best;
  const scores = p.index.scoreRows(vector, listed);
  for (const id of wanted) best.set(id, Math.max(...p.rowsOf.get(id)!.map((row) => scores[slot.get(row)!]!)));
  return best;
}
