/**
 * The regex planner: reads what a pattern's source says about where its matches start (the literals every match
 * begins with), and writes a pattern source that finds any of a set of literals in one pass. Conservative: what it
 * does not understand in a source gives no literals, never wrong ones. `engine.ts` plans rule scans with it.
 */

const MAX_PREFIXES = 16;

/** The parenthesised group starting at `i` (which holds '('), as the index just past its ')'; -1 if unbalanced. */
function groupEnd(source: string, i: number): number {
  let depth = 0;
  let inClass = false;
  for (let j = i; j < source.length; j++) {
    const c = source[j];
    if (c === '\\') j++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return j + 1;
  }
  return -1;
}

const LITERAL = /^(?:[A-Za-z0-9_~\-:=]|\\[./?&+])+$/;
const QUANTIFIER = /[?*+{]/;
const unescapeLiteral = (s: string): string => s.replace(/\\(.)/g, '$1');

/** The literal characters `alternative` starts with, up to the first one that is not certain to be there. */
function literalHead(alternative: string): string {
  let head = '';
  for (let i = 0; i < alternative.length; ) {
    const width = alternative[i] === '\\' ? 2 : 1;
    const token = alternative.slice(i, i + width);
    if (!LITERAL.test(token) || QUANTIFIER.test(alternative[i + width] ?? '')) break;
    head += unescapeLiteral(token);
    i += width;
  }
  return head;
}

/** `source` split at each `|` outside every group and class. */
function alternativesOf(source: string): string[] {
  const alternatives: string[] = [];
  let depth = 0;
  let inClass = false;
  let from = 0;
  for (let j = 0; j < source.length; j++) {
    const c = source[j];
    if (c === '\\') j++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      alternatives.push(source.slice(from, j));
      from = j + 1;
    }
  }
  alternatives.push(source.slice(from));
  return alternatives;
}

/**
 * Literals one of which every match of `source` starts with (after a leading lookbehind), or undefined when the
 * pattern does not start with a short literal, a small set of them, or a small character class. Conservative:
 * anything it does not understand ends the prefix. Single characters count here; see `literalPrefixes`.
 */
export function leadingLiterals(source: string): string[] | undefined {
  // A top-level alternation: no single prefix holds for all matches.
  if (alternativesOf(source).length > 1) return undefined;
  let i = 0;
  while (source.startsWith('(?<', i)) {
    const end = groupEnd(source, i);
    if (end < 0) return undefined;
    i = end;
  }
  let prefixes = [''];
  while (i < source.length && prefixes.length <= MAX_PREFIXES) {
    let options: string[] | undefined;
    let next = i;
    let last = false;
    const c = source[i];
    if (c === '\\' && LITERAL.test(source.slice(i, i + 2))) {
      options = [source[i + 1]];
      next = i + 2;
    } else if (c === '[') {
      const close = source.indexOf(']', i);
      const chars = source.slice(i + 1, close);
      if (close > i && /^[A-Za-z0-9_]{1,6}$/.test(chars)) {
        options = [...chars];
        next = close + 1;
      }
    } else if (source.startsWith('(?:', i)) {
      next = groupEnd(source, i);
      const body = next < 0 ? '' : source.slice(i + 3, next - 1);
      if (body) {
        const alternatives = alternativesOf(body);
        if (alternatives.every((a) => LITERAL.test(a))) options = alternatives.map(unescapeLiteral);
        else {
          // Alternatives that are not all literal: their literal heads end the prefix.
          const heads = alternatives.map(literalHead);
          if (heads.every((h) => h.length > 0)) {
            options = heads;
            last = true;
          }
        }
      }
    } else if (LITERAL.test(c)) {
      options = [c];
      next = i + 1;
    }
    // A quantifier on the token makes it optional or repeated: the prefix ends before it.
    if (!options || QUANTIFIER.test(source[next] ?? '')) break;
    prefixes = prefixes.flatMap((p) => (options as string[]).map((o) => p + o));
    i = next;
    if (last) break;
  }
  if (prefixes.length > MAX_PREFIXES || prefixes.some((p) => p.length === 0)) return undefined;
  return prefixes;
}

/**
 * `leadingLiterals` of two characters or more, which a search of the whole text can look for (a single character
 * would be found at nearly every position), or undefined.
 */
export function literalPrefixes(source: string): string[] | undefined {
  const prefixes = leadingLiterals(source);
  return prefixes?.some((p) => p.length < 2) ? undefined : prefixes;
}

const escapeLiteral = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A literal as pattern units, one per character; a caseless literal's letters become `[xX]` classes. */
const unitsOf = (literal: string, caseless = false): string[] =>
  [...literal].map((c) =>
    caseless && c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeLiteral(c),
  );

/** `literalAlternation` over literals given as pattern units. */
function unitAlternation(literals: readonly (readonly string[])[]): string {
  const byFirst = new Map<string, string[][]>();
  let empty = false;
  for (const units of literals) {
    if (units.length === 0) empty = true;
    else byFirst.set(units[0], [...(byFirst.get(units[0]) ?? []), units.slice(1)]);
  }
  const branches = [...byFirst].map(([first, rests]) =>
    rests.length === 1 ? first + rests[0].join('') : `${first}(?:${unitAlternation(rests)})`,
  );
  if (empty) branches.push('');
  return branches.join('|');
}

/**
 * A pattern source matching any of `literals`, factored on common prefixes (`s(?:k-|ecret_)` rather than
 * `sk-|secret_`): at each position the regex engine then follows one branch per character instead of trying
 * every literal in turn.
 * Matches what the flat alternation, in the given order, matches when no literal is a prefix of another.
 * `caseless` literals match in any case.
 */
export function literalAlternation(
  literals: readonly string[],
  caseless: (literal: string) => boolean = () => false,
): string {
  return unitAlternation(literals.map((l) => unitsOf(l, caseless(l))));
}
