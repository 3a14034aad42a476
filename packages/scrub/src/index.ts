import { detect } from './detect.js';
import { isPlaceholder } from './placeholder.js';
import { redact } from './redact.js';
import { secretlintFindings } from './secretlint.js';
import type { Finding, ScrubResult } from './types.js';

export { detect } from './detect.js';
export { mergeFindings, type RedactOptions, redact, SCRUBBER_VERSION } from './redact.js';
export type { Finding, ScrubReport, ScrubResult } from './types.js';

/**
 * The scrubber. Two layers find what to redact:
 * - the project's own rules (synchronous): vendor credentials by shape, secrets by context (assignments,
 *   headers, cookies, URL passwords, high-entropy values after key words), PEM and Ethereum keys, BIP39
 *   mnemonics, and personal data with validators; JSON-escaped and base64-encoded text included;
 * - secretlint's recommended preset, through `@secretlint/core` (asynchronous, because its API is).
 * `scrub` runs the first layer only, for callers that cannot await; `scrubAsync` runs both and is what the
 * extraction pipeline and the CLI use. Both replace each finding with `[REDACTED:<type>]` and return the
 * `client_scrub_report` ({scrubber_version, patterns_matched, clean}) and the redacted spans.
 */
export function scrub(text: string): ScrubResult {
  return redact(text, detect(text));
}

/** Both layers: the project's own rules plus secretlint's recommended preset (see `scrub`). */
export async function scrubAsync(text: string): Promise<ScrubResult> {
  return redact(text, await detectAsync(text));
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
