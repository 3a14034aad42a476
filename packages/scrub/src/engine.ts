import type { Redundancy } from './covered.js';
import { leadingLiterals, literalAlternation, literalPrefixes } from './regex-planner.js';
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

/** A table of the char codes that `literals` start with, in both cases if `caseless`. */
function startsOf(literals: Iterable<string>, caseless: (literal: string) => boolean): Uint8Array {
  const table = new Uint8Array(128);
  for (const literal of literals) {
    for (const c of caseless(literal) ? [literal[0].toLowerCase(), literal[0].toUpperCase()] : [literal[0]]) {
      table[c.charCodeAt(0)] = 1;
    }
  }
  return table;
}

interface Plan {
  /** Rules scanned on their own, by index into the rule list. */
  plain: number[];
  /** One pattern finding every literal that starts a match of an anchored rule; undefined when none is anchored. */
  anchors?: RegExp;
  /** `anchors`, sticky: reads the literal at a given position. */
  anchorAt?: RegExp;
  /**
   * Char codes (all ASCII) an anchor literal starts with, and by rule index those a plain rule's match starts
   * with where its pattern says (else undefined): given positions holding none of them are passed over cheaply.
   */
  anchorStarts: Uint8Array;
  plainStarts: (Uint8Array | undefined)[];
  /** Whether some anchor literals match in any case (those are keyed in lower case). */
  fold: boolean;
  /** Anchor literal -> indices of the rules a match may start at it. Literals are prefix-free. */
  byAnchor: Map<string, number[]>;
  /** Sticky copies of the rules' patterns, by rule index. */
  sticky: RegExp[];
}

const plans = new WeakMap<readonly Rule[], Plan>();

/**
 * Rules whose matches start with one of a few literals (`ghp_`, `AKIA`, `xox`...) are not scanned one by one: a
 * single pattern finds all their literals, and each rule is tried, sticky, only where one of its literals is. Most
 * texts hold few of them, so one whole-text pass replaces one per rule.
 */
function planFor(rules: readonly Rule[]): Plan {
  let plan = plans.get(rules);
  if (plan) return plan;
  const plain: number[] = [];
  const prefixes = rules.map((rule) => literalPrefixes(rule.pattern.source));
  const sticky = rules.map((rule) => new RegExp(rule.pattern.source, `${rule.pattern.flags.replace('g', '')}y`));
  rules.forEach((_, r) => {
    if (!prefixes[r]) plain.push(r);
  });
  // A case-insensitive rule's literals are looked for in any case, and keyed in lower case; the others in their
  // own case. The sticky pattern then decides, in its own case.
  const wanted: { literal: string; rule: number; caseless: boolean }[] = [];
  rules.forEach((rule, r) => {
    for (const p of prefixes[r] ?? []) {
      const caseless = rule.pattern.ignoreCase;
      wanted.push({ literal: caseless ? p.toLowerCase() : p, rule: r, caseless });
    }
  });
  // Prefix-free, so that at most one literal matches at a position: a literal that extends another is looked
  // for as the shorter one, which is looked for in any case if either is.
  wanted.sort((a, b) => a.literal.length - b.literal.length);
  const anchorList: { literal: string; caseless: boolean; rules: number[] }[] = [];
  const covers = (a: { literal: string; caseless: boolean }, w: { literal: string; caseless: boolean }): boolean =>
    a.caseless || w.caseless
      ? w.literal.toLowerCase().startsWith(a.literal.toLowerCase())
      : w.literal.startsWith(a.literal);
  const addRules = (to: number[], rs: readonly number[]) => {
    for (const r of rs) if (!to.includes(r)) to.push(r);
  };
  for (const w of wanted) {
    const a = anchorList.find((x) => covers(x, w));
    if (!a) {
      anchorList.push({ literal: w.literal, caseless: w.caseless, rules: [w.rule] });
      continue;
    }
    addRules(a.rules, [w.rule]);
    if (w.caseless && !a.caseless) {
      // Now in any case, it may cover longer literals kept apart so far: those are looked for as it.
      a.caseless = true;
      a.literal = a.literal.toLowerCase();
      for (let i = anchorList.length - 1; i >= 0; i--) {
        const b = anchorList[i];
        if (b !== a && covers(a, b)) {
          addRules(a.rules, b.rules);
          anchorList.splice(i, 1);
        }
      }
    }
  }
  const byAnchor = new Map(anchorList.map((a) => [a.literal, a.rules]));
  const caseless = new Set(anchorList.filter((a) => a.caseless).map((a) => a.literal));
  const fold = caseless.size > 0;
  const unicode = rules.some((rule, r) => prefixes[r] && rule.pattern.unicode);
  const source = literalAlternation([...byAnchor.keys()], (l) => caseless.has(l));
  const anchors = byAnchor.size > 0 ? new RegExp(source, `g${unicode ? 'u' : ''}`) : undefined;
  const anchorAt = byAnchor.size > 0 ? new RegExp(source, `y${unicode ? 'u' : ''}`) : undefined;
  const anchorStarts = startsOf(byAnchor.keys(), (l) => caseless.has(l));
  const plainStarts = rules.map((rule, r) => {
    const leading = prefixes[r] ? undefined : leadingLiterals(rule.pattern.source);
    return leading && startsOf(leading, () => rule.pattern.ignoreCase);
  });
  plan = { plain, anchors, anchorAt, anchorStarts, plainStarts, fold, byAnchor, sticky };
  plans.set(rules, plan);
  return plan;
}

/** Appends the finding for match `m` of `rule`, if its value is non-empty, not `covered` and accepted. */
function take(rule: Rule, m: RegExpExecArray, text: string, out: Finding[], covered?: Redundancy): void {
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
  if (value.length === 0) return;
  const from = start - (rule.expandLeft ?? 0);
  if (covered?.(rule.type, from, start + value.length)) return;
  if (rule.accept && !rule.accept(value, m, text)) return;
  out.push({ type: rule.type, start: from, end: start + value.length });
}

/** Where the rules are tried (see `applyRules`). */
export interface AnchorOptions {
  /**
   * Ascending positions, instead of searching the whole text: the anchored rules read their literals there, and
   * the others are tried there. Every position where a match may start must be given.
   */
  at?: readonly number[];
  /** Receives, in ascending order, every position where an anchor literal was found. */
  seen?: number[];
  /** Tells matches that findings before these (in the list given to `redact`) account for: they are not checked. */
  covered?: Redundancy;
}

/**
 * Appends the findings of every rule to `out`, rule by rule in list order (the order settles ties in the
 * redaction type). Capture-group offsets need the `d` flag on the pattern. `rules` is planned once per list and
 * the plan kept with it, so callers pass the same list object each time, not a new array.
 */
export function applyRules(
  text: string,
  rules: readonly Rule[],
  out: Finding[],
  anchorOptions: AnchorOptions = {},
): void {
  if (running) throw new Error("applyRules was entered again from a rule's accept()");
  running = true;
  try {
    scanRules(text, rules, out, anchorOptions);
  } finally {
    running = false;
  }
}

/**
 * Whether `applyRules` is running. The rules' patterns and their sticky copies are shared and hold a scan's
 * position in `lastIndex`, so an accept() that ran rules again would move it under the running scan.
 */
let running = false;

function scanRules(text: string, rules: readonly Rule[], out: Finding[], anchorOptions: AnchorOptions): void {
  const plan = planFor(rules);
  const found: Finding[][] = rules.map(() => []);
  const { at, covered } = anchorOptions;
  // Each rule resumes after its previous match, as a global scan would.
  const resume = new Int32Array(rules.length);
  const startsAt = (starts: Uint8Array, position: number): boolean => {
    const c = text.charCodeAt(position);
    return c < 128 && starts[c] === 1;
  };
  const tryAt = (r: number, position: number): void => {
    if (position < resume[r]) return;
    const re = plan.sticky[r];
    re.lastIndex = position;
    const m = re.exec(text);
    if (!m) return;
    resume[r] = position + Math.max(m[0].length, 1);
    take(rules[r], m, text, found[r], covered);
  };
  for (const r of plan.plain) {
    if (at) {
      const starts = plan.plainStarts[r];
      for (const position of at) if (!starts || startsAt(starts, position)) tryAt(r, position);
      continue;
    }
    // exec on the shared pattern rather than matchAll, which clones the pattern on every call: on the many short
    // texts decoded from base64 the cloning costs more than the matching. No accept() re-enters applyRules.
    const re = rules[r].pattern;
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      if (m[0].length === 0) re.lastIndex++;
      take(rules[r], m, text, found[r], covered);
    }
  }
  if (plan.anchors && plan.anchorAt) {
    const visit = (a: RegExpExecArray): void => {
      anchorOptions.seen?.push(a.index);
      // Most key words are written in lower case: lower-casing (a new string) only the others.
      const rulesHere = plan.byAnchor.get(a[0]) ?? (plan.fold ? plan.byAnchor.get(a[0].toLowerCase()) : undefined);
      for (const r of rulesHere as number[]) tryAt(r, a.index);
    };
    if (at) {
      const { anchorAt, anchorStarts } = plan;
      for (const position of at) {
        if (!startsAt(anchorStarts, position)) continue;
        anchorAt.lastIndex = position;
        const a = anchorAt.exec(text);
        if (a) visit(a);
      }
    } else {
      const anchors = plan.anchors;
      anchors.lastIndex = 0;
      for (let a = anchors.exec(text); a; a = anchors.exec(text)) {
        anchors.lastIndex = a.index + 1; // literals may overlap: ab_ inside xab_
        visit(a);
      }
    }
  }
  for (const list of found) for (const f of list) out.push(f);
}
