import type { Finding } from './types.js';

/**
 * A pattern rule. Patterns must be global and safe on adversarial input: every quantifier over a character class
 * is bounded or followed by a character outside the class, and token-like patterns start with a lookbehind that
 * rejects starts in the middle of a run, so each position is tried at most a bounded number of times.
 */
export interface Rule {
  type: string;
  pattern: RegExp;
  /** Decides on a match; `value` is the span to redact (the first participating capture group, else the match). */
  accept?: (value: string, match: RegExpExecArray, text: string) => boolean;
}

/** Appends the findings of every rule to `out`. Capture-group offsets need the `d` flag on the pattern. */
export function applyRules(text: string, rules: readonly Rule[], out: Finding[]): void {
  for (const rule of rules) {
    for (const m of text.matchAll(rule.pattern)) {
      let start = m.index;
      let value = m[0];
      for (let g = 1; g < m.length; g++) {
        const span = m.indices?.[g];
        if (span) {
          start = span[0];
          value = m[g] as string;
          break;
        }
      }
      if (value.length === 0) continue;
      if (rule.accept && !rule.accept(value, m as RegExpExecArray, text)) continue;
      out.push({ type: rule.type, start, end: start + value.length });
    }
  }
}
