// Name feedback for fused search: a request that names a product ("pages in Notion", "keys in Redis") or gets one
// from the vocabulary (web search -> brave, tavily) is most likely about the skills so named; the fusion of four
// rankings can leave such a skill below near-misses from the semantic or flat rankings. Pure.
import { productKey } from './near-duplicates.js';
import { PLACE_AND_LANGUAGE_WORDS } from './place-names.js';
import { matchForm, textWords } from './query-expansion.js';
import { namesake } from './term-coverage.js';

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

/**
 * The probes of a request (`text`) and the terms added to it; its `keyed` words (keyedNames) are named proper names,
 * as if capitalised.
 */
export const nameProbes = (text: string, added: readonly string[], keyed: readonly string[] = []): NameProbes => ({
  named: nameProbe([...namedWords(text), ...keyed]),
  proper: nameProbe([...properNames(text), ...keyed]),
  products: nameProbe(added),
});

/** What keyedNames asks of a word besides being a candidate's product key. */
export interface KeyedGuard {
  /** The request's content-word stems and those of the terms the vocabulary added (namesake). */
  readonly stems: readonly string[];
  readonly added: readonly string[];
  /** Whether a word is an ordinary word (the sentence model reads it as one piece: `stream`, `coffee`, `make`). */
  readonly ordinary: (word: string) => boolean;
}

/**
 * The words of `text`, in any case, that name some of `candidates` though the request need not capitalise them
 * ("list users in okta", "create a card on trello"): a word that is the whole product key (productKey) of a candidate
 * (`okta` for `okta-mcp-server`), unless `guard.ordinary` calls it an ordinary word ("stream a movie", "coffee shops")
 * or every candidate whose name holds it is a namesake of the request (namesake: its description and tags hold no
 * request word: `octagon` for "octagon area formula"). Short words and place names are left out, as in namedWords.
 */
export function keyedNames(
  text: string,
  candidates: ReadonlyArray<{ id: string; name: string; description: string; tags: readonly string[] }>,
  guard: KeyedGuard,
): string[] {
  const keys = new Set<string>();
  for (const { id } of candidates) {
    const key = productKey(id);
    if (key !== undefined && !key.includes(' ')) keys.add(matchForm(key));
  }
  const words = new Set(
    textWords(text).filter(
      (w) => w.length >= MIN_NAME_WORD && !PLACE_AND_LANGUAGE_WORDS.has(w) && keys.has(matchForm(w)),
    ),
  );
  return [...words].filter(
    (w) =>
      !guard.ordinary(w) &&
      candidates.some((c) => nameMatches(nameProbe([w]), c.name, c.id) && !namesake(guard.stems, guard.added, c)),
  );
}

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
