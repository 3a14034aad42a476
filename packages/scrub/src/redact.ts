import type { Finding, ScrubResult } from './types.js';

export const SCRUBBER_VERSION = 'axle-scrub/0.1.0';

/** Types that say how a secret was found rather than what it is; a specific type wins when both cover a span. */
const GENERIC_TYPES = new Set(['secret_assignment', 'high_entropy_secret', 'authorization_header', 'bearer_token']);
export const isGenericType = (type: string): boolean => GENERIC_TYPES.has(type);

/** Ranks a finding as the name for a merged region: specific before generic, then wider before narrower. */
const rank = (f: Finding): number => (isGenericType(f.type) ? 0 : 1e9) + (f.end - f.start);

/** Sorts findings and merges overlapping ones, so each redacted region is replaced once under its best name. */
export function mergeFindings(findings: readonly Finding[]): Finding[] {
  const sorted = [...findings].filter((f) => f.end > f.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  let best = 0;
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) {
      if (rank(f) > best) {
        last.type = f.type;
        best = rank(f);
      }
      last.end = Math.max(last.end, f.end);
    } else {
      out.push({ ...f });
      best = rank(f);
    }
  }
  return out;
}

export interface RedactOptions {
  /**
   * The text that replaces a merged finding, given the finding and the text it covers; `[REDACTED:<type>]` by
   * default. Called once per finding, in text order, so a caller can number the values it has seen.
   */
  placeholder?: (finding: Finding, value: string) => string;
}

/** Replaces each finding with a placeholder (typed, unless `options` say otherwise) and builds the report. */
export function redact(text: string, findings: readonly Finding[], options: RedactOptions = {}): ScrubResult {
  const merged = mergeFindings(findings);
  const { placeholder } = options;
  let out = '';
  let pos = 0;
  for (const f of merged) {
    out += text.slice(pos, f.start);
    out += placeholder ? placeholder(f, text.slice(f.start, f.end)) : `[REDACTED:${f.type}]`;
    pos = f.end;
  }
  out += text.slice(pos);
  // The types of the placeholders written, so the report and the text agree.
  const patterns = [...new Set(merged.map((f) => f.type))].sort();
  return {
    text: out,
    report: { scrubber_version: SCRUBBER_VERSION, patterns_matched: patterns, clean: patterns.length === 0 },
    findings: merged,
  };
}
