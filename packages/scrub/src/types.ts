import type { PlaceholderNumbering } from './thorough/placeholders.js';

/** One sensitive span found in the input, in UTF-16 offsets of the original text. */
export interface Finding {
  type: string;
  start: number;
  end: number;
}

/** The report sent to the server as `client_scrub_report` (SPEC: POST /extract). */
export interface ScrubReport {
  scrubber_version: string;
  patterns_matched: string[];
  clean: boolean;
  /** Set by the thorough tier, which also counts the redacted regions of each type. */
  tier?: 'thorough';
  counts?: Record<string, number>;
}

/**
 * `fast` (the default): credentials and the personal data that validators or shapes confirm, fast enough for whole
 * transcripts. `thorough`: also person names and street addresses, for short texts about to leave the machine.
 */
export type ScrubTier = 'fast' | 'thorough';

export interface ScrubOptions {
  tier?: ScrubTier;
  /** Thorough tier: numbers shared with other texts (the fields of one draft); a new numbering by default. */
  numbering?: PlaceholderNumbering;
}

export interface ScrubResult {
  text: string;
  report: ScrubReport;
  findings: Finding[];
}
