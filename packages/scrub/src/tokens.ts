import { charClass, runsOf } from './runs.js';

/**
 * What vendor tokens, high-entropy values and Ethereum keys are made of: base64 and base64url characters, the '.'
 * and '~' of JWTs and Azure secrets, and the ':', '=' and '%' of webhook URLs and `AccountKey=`/`sig=` values.
 */
const TOKEN_RUN_CHARS = charClass('A-Za-z0-9+/_.~:=%-');
/** The shortest vendor token: a Slack token, `xoxb-` and ten characters. */
const MIN_VENDOR_TOKEN = 15;
/** What the vendor rules' lookbehind rejects before a token. */
const WORD_CHARS = charClass('A-Za-z0-9_-');

/**
 * Runs of token characters long enough to hold a vendor token, as [start, end) pairs flattened into one array.
 * One pass over the text serves the vendor, high-entropy and Ethereum rules, which look only inside these runs.
 */
export function tokenRuns(text: string): number[] {
  const runs: number[] = [];
  runsOf(text, TOKEN_RUN_CHARS, MIN_VENDOR_TOKEN, (start, end) => runs.push(start, end));
  return runs;
}

/**
 * Where a vendor token can start, in ascending order: in a run of `tokenRuns`, at its start or after a character
 * that is not a word character ('/', '.', '=', ':'...), far enough from its end to hold the shortest token.
 */
export function vendorTokenStarts(text: string, runs: readonly number[]): number[] {
  const starts: number[] = [];
  for (let r = 0; r < runs.length; r += 2) {
    const last = runs[r + 1] - MIN_VENDOR_TOKEN;
    if (runs[r] <= last) starts.push(runs[r]);
    for (let p = runs[r] + 1; p <= last; p++) if (WORD_CHARS[text.charCodeAt(p - 1)] === 0) starts.push(p);
  }
  return starts;
}
