// Near-duplicate MCP servers: the catalog holds several servers for one product (`notion-mcp`,
// `mcp-notion-server`, `notion-remote`), from different authors or registries. When one of them is among a
// request's first answers, its siblings answer it as well, so fused search places them right below it instead of
// leaving them under near-misses from other products. Pure.
import { textWords } from './query-expansion.js';

/** Words of a server's id that name its packaging, not its product. */
export const PACKAGING: ReadonlySet<string> = new Set(
  (
    'mcp server remote official the io py go ts js node python typescript model context protocol ai labs awslabs ' +
    'api tools tool simple lite'
  ).split(' '),
);

/** The product an MCP server's id names (`mcp-server-redis` -> `redis`), or undefined when only packaging is left. */
export function productKey(id: string): string | undefined {
  const key = textWords(id)
    .filter((w) => !PACKAGING.has(w))
    .join(' ');
  return key === '' ? undefined : key;
}

export interface Scored {
  id: string;
  score: number;
}

/**
 * Lifts siblings (hits of one product key) to just below the first of them, when that first is among the first
 * `leaders` hits: a sibling scores at least the first's score minus `gap`. `hits` are best first; `key` gives an
 * id's product key (undefined for skills that are not MCP servers). Returns a new list, best first.
 */
export function groupSiblings<T extends Scored>(
  hits: readonly T[],
  key: (id: string) => string | undefined,
  leaders: number,
  gap: number,
): T[] {
  if (!(gap >= 0)) throw new RangeError(`gap must be non-negative, got ${gap}`);
  const first = new Map<string, number>();
  const out = hits.map((h, i) => {
    const k = key(h.id);
    if (k === undefined) return h;
    const leader = first.get(k);
    if (leader === undefined) {
      if (i < leaders) first.set(k, h.score);
      return h;
    }
    return h.score >= leader - gap ? h : { ...h, score: leader - gap };
  });
  return out.sort((a, b) => b.score - a.score);
}

/**
 * The hits at places `from` to `to` (0-based, `to` excluded) that share a product key with one of the first
 * `leaders` hits: a leader's siblings too far down for a rerank of the first `from` to see. `hits` are best first;
 * `key` as for groupSiblings.
 */
export function siblingsBelow<T extends { id: string }>(
  hits: readonly T[],
  key: (id: string) => string | undefined,
  { leaders, from, to }: { leaders: number; from: number; to: number },
): T[] {
  const keys = new Set(hits.slice(0, leaders).map((h) => key(h.id)));
  keys.delete(undefined);
  return hits.slice(from, Math.max(from, to)).filter((h) => keys.has(key(h.id)));
}
