// The developer vocabulary's side of the skill vectors (domain/vocabulary-shift.ts): each line's direction (the unit
// mean of its phrases' vectors) is precomputed into the bundled vectors file by `npm run catalog:vectors`, keyed by
// the line's phrases; at start each line owns the records its terms rank first, and those records' vectors are moved.
import { linesByRecord, OWNED_PER_LINE } from '../domain/vocabulary-shift.js';
import type { ThesaurusLine } from '../domain/query-expansion.js';
import type { SkillsStore } from '../store/skills.js';
import { EMBEDDING_MODEL, normalize, textHash } from './embedding-text.js';
import { readQuantizedRows } from './vector-file.js';

/** The key of a line's direction in a vectors file: its phrases (a line whose phrases change needs a new one). */
export const lineDirectionHash = (line: ThesaurusLine): string => textHash(`vocabulary: ${line.phrases.join(' | ')}`);

/** Each line's direction found in `file` (undefined for a line the file lacks: it moves nothing). */
export function readLineDirections(file: string, lines: readonly ThesaurusLine[]): Array<Float32Array | undefined> {
  const { found, rows } = readQuantizedRows(file, EMBEDDING_MODEL, lines.map(lineDirectionHash));
  const out = new Array<Float32Array | undefined>(lines.length).fill(undefined);
  const dim = found.length > 0 ? rows.codes.length / found.length : 0;
  for (const [row, line] of found.entries()) {
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = rows.codes[row * dim + j]! * rows.scales[row]!;
    out[line] = normalize(v);
  }
  return out;
}

/**
 * Record -> the directions of the lines that move it: each line with a direction owns the OWNED_PER_LINE records
 * its terms rank first by BM25 over the whole catalog (one lexical search a line), and a record keeps the lines
 * ranking it highest (linesByRecord).
 */
export async function ownedDirections(
  repo: Pick<SkillsStore, 'lexicalSearch'>,
  lines: readonly ThesaurusLine[],
  directions: ReadonlyArray<Float32Array | undefined>,
): Promise<Map<string, Float32Array[]>> {
  const ranked: string[][] = [];
  for (const [i, line] of lines.entries())
    ranked.push(
      directions[i] === undefined
        ? []
        : (await repo.lexicalSearch(line.terms.join(' '), {}, OWNED_PER_LINE)).map((h) => h.id),
    );
  const out = new Map<string, Float32Array[]>();
  for (const [id, owning] of linesByRecord(ranked))
    out.set(
      id,
      owning.map((l) => directions[l]!),
    );
  return out;
}
