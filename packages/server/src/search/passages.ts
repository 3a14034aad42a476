// Passages: the parts of a skill that can match a request on their own (each tool, each sentence of a
// longer description, or a short description alone). Search reranks its top candidates by the best-matching
// passage, so a server whose one tool fits the request is not judged by an average of everything it does.
import type { Skill } from '@axle/sdk';
import { toolWords } from '../domain/tool-words.js';
import type { Int8Index } from './int8-index.js';

/** Passages of one skill, at most: the first tools a server lists are usually its main ones. */
export const MAX_PASSAGES = 48;
const MIN_SENTENCE = 24;

/**
 * A skill's passages: its tools (`name words: description`), then its description's sentences when it has several,
 * or else the description itself: bare of the name, tags and category the whole text adds, it says what the skill does.
 */
export function skillPassages(skill: Pick<Skill, 'description' | 'tools'>): string[] {
  const out = (skill.tools ?? []).map((t) => `${toolWords(t.name)}: ${t.description}`.trim());
  const description = skill.description.trim();
  const sentences = description
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= MIN_SENTENCE);
  if (sentences.length > 1) out.push(...sentences);
  else if (description.length > 0) out.push(description);
  return [...new Set(out)].slice(0, MAX_PASSAGES);
}

/** Passage vectors in one index; row i belongs to skill `owners[i]`. */
export interface PassageIndex {
  index: Int8Index;
  owners: string[];
}

/** The best cosine of `vector` over each skill's passages, for the skills in `ids` that have any. */
export function bestPassageScores(p: PassageIndex, vector: Float32Array, ids: readonly string[]): Map<string, number> {
  const wanted = new Set(ids);
  const scores = p.index.scoreAll(vector);
  const best = new Map<string, number>();
  for (const [row, owner] of p.owners.entries()) {
    if (!wanted.has(owner)) continue;
    const s = scores[row]!;
    if (s > (best.get(owner) ?? Number.NEGATIVE_INFINITY)) best.set(owner, s);
  }
  return best;
}
