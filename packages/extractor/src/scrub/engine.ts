import type { Finding } from './types.js';

/**
 * A pattern rule. Patterns must be global and safe on adversarial input: every quantifier over a character class
 * is bounded or followed by a character outside the class, and token-like patterns start with a lookbehind that
 * rejects starts in the middle of a run, so each position is tried at most a bounded number of times.
 */
export interface Rule {
  type: string;
  pattern: RegExp;
  /** Characters before the match that belong to the finding (for patterns anchored on a literal in the middle). */
  expandLeft?: number;
  /** Decides on a match; `value` is the span to redact (the first participating capture group, else the match). */
  accept?: (value: string, match: RegExpExecArray, text: string) => boolean;
}

/** Appends the findings of every rule to `out`. Capture-group offsets need the `d` flag on the pattern. */
export function applyRules(text: string, rules: readonly Rule[], out: Finding[]): void {
  for (const rule of rules) {
    // exec on the shared pattern rather than matchAll, which clones the pattern on every call: on the many short
    // texts decoded from base64 the cloning cost more than the matching. No accept() re-enters applyRules.
    const re = rule.pattern;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
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
      if (rule.accept && !rule.accept(value, m, text)) continue;
      const end = start + value.length;
      out.push({ type: rule.type, start: start - (rule.expandLeft ?? 0), end });
    }
  }
}
