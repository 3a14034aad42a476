import type { Finding, ScrubResult } from './types.js';

export const SCRUBBER_VERSION = 'axle-scrub/0.1.0';

/**
 * Sorts findings and merges overlapping ones, so each redacted region is replaced once.
 * A merged region keeps the type of its longest member (the most specific match is usually the widest).
 */
export function mergeFindings(findings: readonly Finding[]): Finding[] {
  const sorted = [...findings].filter((f) => f.end > f.start).sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  let widest = 0;
  for (const f of sorted) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) {
      if (f.end - f.start > widest) {
        last.type = f.type;
        widest = f.end - f.start;
      }
      last.end = Math.max(last.end, f.end);
    } else {
      out.push({ ...f });
      widest = f.end - f.start;
    }
  }
  return out;
}

/** Replaces each finding with a typed placeholder and builds the `client_scrub_report`. */
export function redact(text: string, findings: readonly Finding[]): ScrubResult {
  const merged = mergeFindings(findings);
  let out = '';
  let pos = 0;
  for (const f of merged) {
    out += `${text.slice(pos, f.start)}[REDACTED:${f.type}]`;
    pos = f.end;
  }
  out += text.slice(pos);
  // Types of every raw finding, not only merged survivors, so the report says everything that matched.
  const patterns = [...new Set(findings.map((f) => f.type))].sort();
  return {
    text: out,
    report: { scrubber_version: SCRUBBER_VERSION, patterns_matched: patterns, clean: patterns.length === 0 },
    findings: merged,
  };
}
