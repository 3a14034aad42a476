import { createHash } from 'node:crypto';
import type { Skill } from '@axle/sdk';
import { toolWords } from '../domain/tool-words.js';

/** Identifies the model (and how its vectors are normalised) in the embeddings table and the bundled file. */
export const EMBEDDING_MODEL = 'universal-sentence-encoder-lite-512/energetic-ai-0.2';
export const EMBEDDING_DIM = 512;

const MAX_DESCRIPTION = 600;
/** With tools, the description gets less room: the model sees about 128 words in all. */
const MAX_DESCRIPTION_WITH_TOOLS = 300;
/** Tool names embedded, at most (the first ones a server lists, usually its main ones). */
const MAX_TOOLS = 24;

const cut = (text: string, n: number) => (text.length > n ? `${text.slice(0, n)}…` : text);

/** A name that is one snake_case identifier (`delete_group`, a tool of a catalog of tools) is embedded as words. */
const embeddedName = (name: string) => (/^\S+$/.test(name) && name.includes('_') ? toolWords(name) : name);

/** The text a skill is embedded from: what it is called, what it does, its tools, tags and category. */
export function embeddingText(skill: Pick<Skill, 'name' | 'description' | 'tags' | 'category' | 'tools'>): string {
  const tools = skill.tools ?? [];
  const description = cut(skill.description, tools.length > 0 ? MAX_DESCRIPTION_WITH_TOOLS : MAX_DESCRIPTION);
  const toolText =
    tools.length > 0
      ? ` Tools: ${tools
          .slice(0, MAX_TOOLS)
          .map((t) => toolWords(t.name))
          .join(', ')}.`
      : '';
  const tags = skill.tags.length > 0 ? ` Tags: ${skill.tags.join(', ')}.` : '';
  return `${embeddedName(skill.name)}: ${description}${toolText}${tags} Category: ${skill.category.replaceAll('-', ' ')}.`;
}

/** Names the embedded text (with the model), so a vector is reused only for the same text. */
export function textHash(text: string): string {
  return createHash('sha256').update(EMBEDDING_MODEL).update('\0').update(text).digest('hex').slice(0, 32);
}

/** Scales `v` to unit length in place (cosine similarity becomes a dot product) and returns it. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}
