import { seededRandom } from '../../../test/support/random.js';
import { ADDRESS_RULES, NUMBERED_STREET_RULE } from '../src/address.js';
import { type AnchorOptions, applyRules, type Rule } from '../src/engine.js';
import { PHONE_RULE } from '../src/phone.js';
import { PII_RULES } from '../src/rules/pii.js';
import { AZURE_RULES, CONTEXT_RULES, TOKEN_RULES } from '../src/rules/secrets.js';
import type { Finding } from '../src/types.js';

/** Every pattern rule of the scrubber. */
export const ALL_RULES: readonly Rule[] = [
  ...TOKEN_RULES,
  ...AZURE_RULES,
  ...CONTEXT_RULES,
  ...PII_RULES,
  PHONE_RULE,
  NUMBERED_STREET_RULE,
  ...ADDRESS_RULES,
];

/** What applyRules finds in `text`. */
export function applied(text: string, rules: readonly Rule[], options?: AnchorOptions): Finding[] {
  const found: Finding[] = [];
  applyRules(text, rules, found, options);
  return found;
}

/** The reference: every rule scanned over the whole text on its own. */
export function scanEach(text: string, rules: readonly Rule[]): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    for (const m of text.matchAll(rule.pattern)) {
      let start = m.index;
      let value = m[0];
      // The value is the first participating group where the pattern has the `d` flag, as `take` reads it; without the
      // flag the groups serve the pattern itself (the SSN rule's separator).
      const g = m.indices ? m.findIndex((v, i) => i > 0 && v !== undefined) : -1;
      if (g > 0) {
        start = (m.indices as RegExpIndicesArray)[g][0];
        value = m[g] as string;
      }
      if (value.length === 0 || (rule.accept && !rule.accept(value, m, text))) continue;
      out.push({ type: rule.type, start: start - (rule.expandLeft ?? 0), end: start + value.length });
    }
  }
  return out;
}

/** Where matches of `rules` start in `text`, every rule scanned over the whole text, accepted or not. */
export function matchStarts(text: string, rules: readonly Rule[]): number[] {
  const starts = new Set<number>();
  for (const rule of rules) for (const m of text.matchAll(rule.pattern)) starts.add(m.index);
  return [...starts].sort((a, b) => a - b);
}

export const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Deterministic random-looking tokens (repeated characters would read as placeholders): pad(alphabet, length). */
export function seededPad(seed: number): (alphabet: string, n: number) => string {
  const random = seededRandom(seed);
  return (alphabet, n) => Array.from({ length: n }, () => alphabet[random() % alphabet.length]).join('');
}

/** `count` texts of `length` pieces each, drawn from `pieces` by a seeded sequence. */
export function randomTexts(seed: number, pieces: readonly string[], count: number, length: number): string[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    let t = '';
    for (let i = 0; i < length; i++) t += pieces[random() % pieces.length];
    return t;
  });
}
