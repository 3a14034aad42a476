// Name feedback for fused search: a request that names a product ("pages in Notion", "keys in Redis") or gets one
// from the vocabulary (web search -> brave, tavily) is most likely about the skills so named; the fusion of four
// rankings can leave such a skill below near-misses from the semantic or flat rankings. Pure.
import { PLACE_AND_LANGUAGE_WORDS } from './place-names.js';
import { matchForm, textWords } from './query-expansion.js';

/** Words shorter than this never match a name (`in`, `my`, `to`). */
export const MIN_NAME_WORD = 3;

/** The match forms of `words` (a request's named words, or the terms added to it) that can match a name. */
export function nameProbe(words: readonly string[]): ReadonlySet<string> {
  return new Set(words.filter((w) => w.length >= MIN_NAME_WORD).map(matchForm));
}

/** Whether a word of the skill's name or id (`redis/mcp-redis`, `gmail-mcp-server`) is in `probe`. */
export function nameMatches(probe: ReadonlySet<string>, name: string, id: string): boolean {
  if (probe.size === 0) return false;
  return [...textWords(name), ...textWords(id)].some((w) => probe.has(matchForm(w)));
}

/**
 * Words of `text` written with a capital after its first word (`Notion`, `GitHub`, `MySQL`): the products it names.
 * Place and language names (`Spanish`, `London`) are left out: they say where, not which product.
 */
export function namedWords(text: string): string[] {
  const words = text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  return words
    .slice(1)
    .filter((w) => /\p{Lu}/u.test(w))
    .map((w) => w.toLowerCase())
    .filter((w) => !PLACE_AND_LANGUAGE_WORDS.has(w));
}

/** The probes of one request: the words it names, and the terms the vocabulary added to it. */
export interface NameProbes {
  readonly named: ReadonlySet<string>;
  readonly products: ReadonlySet<string>;
}

/** The probes of a request (`text`) and the terms added to it. */
export const nameProbes = (text: string, added: readonly string[]): NameProbes => ({
  named: nameProbe(namedWords(text)),
  products: nameProbe(added),
});

/**
 * What a skill gains by its name: `named` when a word the request names is in it, else `product` for an added term,
 * else `described` when a word the request names is in its description (an MCP server for "Confluence and Jira"
 * named `mcp-atlassian`).
 */
export function nameLift(
  probes: NameProbes,
  skill: { name: string; id: string; description: string },
  bonus: { named: number; product: number; described: number },
): number {
  if (nameMatches(probes.named, skill.name, skill.id)) return bonus.named;
  if (nameMatches(probes.products, skill.name, skill.id)) return bonus.product;
  return nameMatches(probes.named, skill.description, '') ? bonus.described : 0;
}
