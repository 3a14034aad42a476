export { SCRUBBER_VERSION, scrub, scrubAsync } from './scrub/index.js';
export type { Finding, ScrubReport, ScrubResult } from './scrub/index.js';
