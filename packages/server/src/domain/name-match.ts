// Name feedback for fused search: a request that names a product ("pages in Notion", "keys in Redis") or gets one
// from the vocabulary (web search -> brave, tavily) is most likely about the skills so named; the fusion of four
// rankings can leave such a skill below near-misses from the semantic or flat rankings. Pure.
import { productKey } from './near-duplicates.js';
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

/**
 * The named words of `text` (namedWords) written with a lower-case letter too (`Shopify`, `Auth0`, `GitHub`): proper
 * names. Words in capitals only (`URL`, `LLM`, `PDF`, `AWS`) are left out: most are generic acronyms.
 */
export function properNames(text: string): string[] {
  const mixed = new Set(
    (text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [])
      .filter((w) => /\p{Ll}/u.test(w))
      .map((w) => w.toLowerCase()),
  );
  return namedWords(text).filter((w) => mixed.has(w));
}

/** The probes of one request: the words it names, its proper names among them, and the terms the vocabulary added. */
export interface NameProbes {
  readonly named: ReadonlySet<string>;
  readonly proper: ReadonlySet<string>;
  readonly products: ReadonlySet<string>;
}

/** The probes of a request (`text`) and the terms added to it. */
export const nameProbes = (text: string, added: readonly string[]): NameProbes => ({
  named: nameProbe(namedWords(text)),
  proper: nameProbe(properNames(text)),
  products: nameProbe(added),
});

/**
 * The ids of `skills` that are the only one of them whose name or id holds some proper name of the request: "orders
 * from my Shopify store" with one Shopify server among the candidates names that server, not a marketplace API. Where
 * several hold it, those whose id is the name and packaging only (`clickup`, `clickup-mcp-server`; not `github-chat`)
 * are the product itself, and all of them are named.
 */
export function soleNamed(probes: NameProbes, skills: ReadonlyArray<{ name: string; id: string }>): Set<string> {
  const sole = new Set<string>();
  for (const word of probes.proper) {
    const probe = new Set([word]);
    const holders = skills.filter((s) => nameMatches(probe, s.name, s.id));
    const pure = holders.filter((s) => productKey(s.id) === word);
    for (const s of pure.length > 0 ? pure : holders.length === 1 ? holders : []) sole.add(s.id);
  }
  return sole;
}

/**
 * What a skill gains by its name: `sole` when `sole` ids (soleNamed) hold it, else `named` when a word the request
 * names is in it, else `product` for an added term, else `described` when a word the request names is in its
 * description (an MCP server for "Confluence and Jira" named `mcp-atlassian`).
 */
export function nameLift(
  probes: NameProbes,
  skill: { name: string; id: string; description: string },
  bonus: { sole: number; named: number; product: number; described: number },
  sole: ReadonlySet<string> = new Set(),
): number {
  if (sole.has(skill.id)) return bonus.sole;
  if (nameMatches(probes.named, skill.name, skill.id)) return bonus.named;
  if (nameMatches(probes.products, skill.name, skill.id)) return bonus.product;
  return nameMatches(probes.named, skill.description, '') ? bonus.described : 0;
}
