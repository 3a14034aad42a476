import { detect } from './detect.js';
import { isPlaceholder } from './placeholder.js';
import { redact } from './redact.js';
import { secretlintFindings } from './secretlint.js';
import type { ScrubResult } from './types.js';

export { SCRUBBER_VERSION } from './redact.js';
export type { Finding, ScrubReport, ScrubResult } from './types.js';

/**
 * Synchronous scrub with the project's own rules only (secrets the preset misses, plus personal data).
 * Use it where an await is impossible; everything else should call `scrubAsync`.
 */
export function scrub(text: string): ScrubResult {
  return redact(text, detect(text));
}

/** Both layers: the project's own rules plus secretlint's recommended preset. This is the API the pipeline uses. */
export async function scrubAsync(text: string): Promise<ScrubResult> {
  // The project's placeholder policy applies to the preset too: `ghp_xxxx...` is documentation, not a leak.
  const preset = (await secretlintFindings(text)).filter((f) => !isPlaceholder(text.slice(f.start, f.end)));
  return redact(text, [...detect(text), ...preset]);
}
