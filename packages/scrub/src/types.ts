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
}

export interface ScrubResult {
  text: string;
  report: ScrubReport;
  findings: Finding[];
}
