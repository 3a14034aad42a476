import { detect } from './detect.js';
import { isPlaceholder } from './placeholder.js';
import { mergeFindings, redact } from './redact.js';
import { secretlintFindings } from './secretlint.js';
import { detectPersonal } from './thorough/detect.js';
import { PlaceholderNumbering } from './thorough/placeholders.js';
import type { Finding, ScrubOptions, ScrubResult } from './types.js';

export { detect } from './detect.js';
export { type FoldedText, foldText, latinLookalike } from './fold.js';
export { mergeFindings, type RedactOptions, redact, SCRUBBER_VERSION } from './redact.js';
export { detectPersonal } from './thorough/detect.js';
export { PlaceholderNumbering } from './thorough/placeholders.js';
export type { Finding, ScrubOptions, ScrubReport, ScrubResult, ScrubTier } from './types.js';

/**
 * The scrubber. Two layers find what to redact:
 * - the project's own rules (synchronous): vendor credentials by shape, secrets by context (assignments,
 *   headers, cookies, URL passwords, high-entropy values after key words), PEM and Ethereum keys, BIP39
 *   mnemonics, and personal data with validators; JSON-escaped and base64-encoded text included;
 * - secretlint's recommended preset, through `@secretlint/core` (asynchronous, because its API is).
 * `scrub` runs the first layer only, for callers that cannot await; `scrubAsync` runs both and is what the
 * extraction pipeline and the CLI use. Both replace each finding with `[REDACTED:<type>]` and return the
 * `client_scrub_report` ({scrubber_version, patterns_matched, clean}) and the redacted spans.
 *
 * That is the fast tier, for whole transcripts. `{tier: 'thorough'}` adds person names and street addresses, for
 * short texts about to leave the machine (drafts, learnings); see `thorough` below.
 */
export function scrub(text: string, options: ScrubOptions = {}): ScrubResult {
  return options.tier === 'thorough' ? thorough(text, detect(text), options) : redact(text, detect(text));
}

/** Both layers: the project's own rules plus secretlint's recommended preset (see `scrub`). */
export async function scrubAsync(text: string, options: ScrubOptions = {}): Promise<ScrubResult> {
  const found = await detectAsync(text);
  return options.tier === 'thorough' ? thorough(text, found, options) : redact(text, found);
}

/**
 * The thorough tier: the fast tier's findings plus person names and street addresses (`detectPersonal`), which
 * become numbered placeholders (`[PERSON_1]`, `[ADDRESS_1]`, the same for the same value within the text); the
 * report also gives the tier and how many regions of each type were redacted. `options.numbering` carries the
 * numbers from one text to the next.
 */
function thorough(text: string, fast: readonly Finding[], options: ScrubOptions): ScrubResult {
  const merged = mergeFindings([...fast, ...outside(text, detectPersonal(text), fast)]);
  const names = (options.numbering ?? new PlaceholderNumbering()).placeholders(text, merged);
  let i = 0;
  const result = redact(text, merged, { placeholder: () => names[i++] });
  const counts: Record<string, number> = {};
  for (const f of result.findings) counts[f.type] = (counts[f.type] ?? 0) + 1;
  return { ...result, report: { ...result.report, tier: 'thorough', counts } };
}

/**
 * The parts of `findings` outside every one of `fast`: a name or an address never takes the place of a phone
 * number or key found inside or beside it, so the thorough tier finds everything the fast tier does, as the same type.
 */
function outside(text: string, findings: readonly Finding[], fast: readonly Finding[]): Finding[] {
  // The fast tier's street addresses are the same type: they merge with the thorough tier's.
  const taken = mergeFindings(fast.filter((f) => f.type !== 'street_address'));
  const out: Finding[] = [];
  for (const f of findings) {
    // The first region that ends after f starts; merged regions are disjoint and sorted, so by end too.
    let lo = 0;
    let hi = taken.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (taken[mid].end <= f.start) lo = mid + 1;
      else hi = mid;
    }
    let start = f.start;
    for (let i = lo; i < taken.length && taken[i].start < f.end; i++) {
      if (taken[i].start > start) out.push({ type: f.type, start, end: taken[i].start });
      start = Math.max(start, taken[i].end);
    }
    if (start < f.end) out.push({ type: f.type, start, end: f.end });
  }
  return out.filter((f) => /[\p{L}\p{N}]/u.test(text.slice(f.start, f.end)));
}

/**
 * The findings of both layers, unmerged, in offsets of `text`: what `scrubAsync` redacts. With `detect` (the
 * project's rules alone) and `redact`, callers can add findings of their own or choose other placeholders.
 */
export async function detectAsync(text: string): Promise<Finding[]> {
  // The project's placeholder policy applies to the preset too: `ghp_xxxx...` is documentation, not a leak.
  const preset = (await secretlintFindings(text)).filter((f) => !isPlaceholder(text.slice(f.start, f.end)));
  return [...detect(text), ...preset];
}
