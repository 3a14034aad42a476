// Passages: the parts of a skill that can match a request on their own (each example, each tool, each sentence
// of a longer description, or a short description alone). Search reranks its top candidates by the best-matching
// passage, so a server whose one tool fits the request is not judged by an average of everything it does.
import type { Skill } from '@axle/sdk';
import { toolWords } from '../domain/tool-words.js';
import type { Int8Index } from './int8-index.js';

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

/** Passage vectors in one index; row i belongs to skill `owners[i]`, and each skill's rows are consecutive. */
export interface PassageIndex {
  index: Int8Index;
  owners: string[];
  /** Each skill's first row and how many rows it has. */
  rowsOf: Map<string, { from: number; count: number }>;
}

/** The index of passage rows owned by `owners` (each skill's rows consecutive), with where each skill's rows are. */
export function passageIndex(index: Int8Index, owners: string[]): PassageIndex {
  const rowsOf = new Map<string, { from: number; count: number }>();
  for (const [row, owner] of owners.entries()) {
    const at = rowsOf.get(owner);
    if (at === undefined) rowsOf.set(owner, { from: row, count: 1 });
    else if (at.from + at.count === row) at.count += 1;
    else throw new Error(`passages of ${owner} are not consecutive`);
  }
  return { index, owners, rowsOf };
}

/**
 * The best cosine of `vector` over each skill's passages, for the skills in `ids` that have any: only their rows
 * are scored, so the cost follows the candidates, not the catalog.
 */
export function bestPassageScores(p: PassageIndex, vector: Float32Array, ids: readonly string[]): Map<string, number> {
  const rows: number[] = [];
  for (const id of new Set(ids)) {
    const at = p.rowsOf.get(id);
    if (at !== undefined) for (let row = at.from; row < at.from + at.count; row++) rows.push(row);
  }
  const best = new Map<string, number>();
  if (rows.length === 0) return best;
  const scores = p.index.scoreRows(vector, rows);
  for (const [k, row] of rows.entries()) {
    const owner = p.owners[row]!;
    if (scores[k]! > (best.get(owner) ?? Number.NEGATIVE_INFINITY)) best.set(owner, scores[k]!);
  }
  return best;
}
