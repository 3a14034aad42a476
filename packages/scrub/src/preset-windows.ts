/**
 * The parts of a text in which secretlint's recommended preset (12.0.0, as `secretlint.ts` runs it: no file
 * extension, a `.txt` path, no options, directives rewritten) can report anything, so that `lintSource` reads
 * those parts instead of the whole text, with the same findings. Derived from the rules' sources; a test pins the
 * preset's version and rule ids, and compares both ways of linting on the bench texts and on edge cases.
 *
 * Token rules (every rule but two) match no whitespace: each match lies inside one run of non-space characters
 * (JavaScript's `\s`), and holds a literal found below: `npm_`, `gh[pousr]_`, `github_`, `shp(pa|ca|at|ss)_`, `glc_`,
 * `glsa_`, `gsk_`, `hf_`, `lin_`, `ntn_`, `ops_`, `vc[pikar]_`, `dckr_`, `figd_`, `xox[bpaor]-`, `xapp-`, `glpat-`,
 * `sk-` (OpenAI, Anthropic), `SG.`, `hv[sbr].`, `://` (basic-auth URLs, Slack webhooks, MongoDB, MySQL and
 * PostgreSQL URIs; their `i` flag without `u` lets no other character match these), `dapi`. Their lookarounds
 * (`(?<!\p{L})`, `\b`, `(?![...])`) treat every space like a line break. So the run around each literal is a window,
 * and the windows are joined by line breaks: each token match is found where it was, and none spans two windows.
 * GCP's rule reads only `.json` and `.p12` files, npm's package.json and .npmrc rules only files of those names,
 * and the comment filter has no directives left to obey.
 *
 * The two rules whose matches may hold spaces start at a literal and read a bounded stretch after it; their window
 * reaches past all of it, to the next space:
 * - AWS secret keys: `["']?(AWS)?_?SECRET_?ACCESS_?KEY["']?\s*(:|=>|=)\s*["']?[A-Za-z0-9/+=]{40}["']?\b` (each word
 *   in three cases) starts in the run of its key words and reads past them at most a quote, spaces, a two-character
 *   connector, spaces, and 43 characters;
 * - PEM private keys: `-----BEGIN` starts a marker of at most 41 characters; the body, up to 10,000 characters of
 *   `[A-Za-z0-9+/=\s\\]` and two line breaks, ends at the first character outside that class; the end marker takes
 *   at most 41 more.
 */

import { isSpace } from './runs.js';

/**
 * The literals above, in one search. Most follow a `_`, `-`, `.` or `:` found first and checked behind, so the
 * search skips along on four characters rather than on the many letters the literals start with.
 */
const LITERAL = new RegExp(
  [
    '_(?<=(?:npm|gh[pousr]|github|shp(?:pa|ca|at|ss)|gl(?:c|sa)|gsk|hf|lin|ntn|ops|vc[pikar]|dckr|figd)_)',
    '-(?<=(?:xox[bpaor]|xapp|glpat|sk)-)',
    String.raw`\.(?<=(?:SG|hv[sbr])\.)`,
    String.raw`:\/\/`,
    '-----BEGIN',
    'dapi',
    '(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)',
  ].join('|'),
  'g',
);
const AWS_KEY_WORDS = /(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)/g;
const PEM_MARKER = 41;
// The body's class, as far as a body with its two optional line breaks can reach (10,002 characters).
const PEM_BODY = /[A-Za-z0-9+/=\s\\]{0,10002}/y;

const skipSpaces = (text: string, i: number): number => {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
};
const nextSpace = (text: string, i: number): number => {
  while (i < text.length && !isSpace(text.charCodeAt(i))) i++;
  return i;
};

/** The last index an AWS-key match starting at key words ending at `keyEnd` can read. */
function awsReach(text: string, keyEnd: number): number {
  const connector = skipSpaces(text, keyEnd + 1); // after an optional quote and spaces
  return skipSpaces(text, connector + 2) + 43; // spaces, then quote, 40 key characters, quote, `\b`
}

/** The last index a PEM match starting at `begin` can read. */
function pemReach(text: string, begin: number): number {
  const bodyFrom = begin + PEM_MARKER;
  if (bodyFrom >= text.length) return text.length;
  PEM_BODY.lastIndex = bodyFrom;
  PEM_BODY.exec(text);
  return PEM_BODY.lastIndex + PEM_MARKER + 1;
}

/** How far past a run the windows must reach for the AWS and PEM matches that may start in it. */
function reachFrom(text: string, start: number, end: number): number {
  let reach = end;
  const run = text.slice(start, end);
  AWS_KEY_WORDS.lastIndex = 0;
  for (let m = AWS_KEY_WORDS.exec(run); m; m = AWS_KEY_WORDS.exec(run)) {
    reach = Math.max(reach, awsReach(text, start + m.index + m[0].length) + 1);
  }
  for (let b = run.indexOf('-----BEGIN'); b >= 0; b = run.indexOf('-----BEGIN', b + 1)) {
    reach = Math.max(reach, pemReach(text, start + b) + 1);
  }
  return reach;
}

/** The windows, as sorted, disjoint [start, end) pairs flattened into one array; each starts and ends at a space. */
export function presetWindows(text: string): number[] {
  const windows: number[] = [];
  LITERAL.lastIndex = 0;
  for (let m = LITERAL.exec(text); m; m = LITERAL.exec(text)) {
    let start = m.index;
    while (start > 0 && !isSpace(text.charCodeAt(start - 1))) start--;
    const runEnd = nextSpace(text, m.index + m[0].length);
    const reach = reachFrom(text, start, runEnd);
    const end = reach > runEnd ? nextSpace(text, Math.min(reach, text.length)) : runEnd;
    const last = windows.length - 1;
    if (last >= 0 && start <= windows[last]) windows[last] = Math.max(windows[last], end);
    else windows.push(start, end);
    LITERAL.lastIndex = runEnd; // the rest of the run is in the window already
  }
  return windows;
}

/** The windows of `text` joined by line breaks, each after one, and the way back to offsets in `text`. */
export interface WindowedText {
  content: string;
  toOriginal(offset: number): number;
}

export function presetView(text: string): WindowedText | undefined {
  const windows = presetWindows(text);
  if (windows.length === 0) return undefined;
  let content = '';
  const at: number[] = []; // where each window starts in `content`
  for (let i = 0; i < windows.length; i += 2) {
    content += '\n';
    at.push(content.length);
    content += text.slice(windows[i], windows[i + 1]);
  }
  return {
    content,
    toOriginal(offset) {
      let lo = 0;
      let hi = at.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (at[mid] <= offset) lo = mid;
        else hi = mid - 1;
      }
      return windows[2 * lo] + offset - at[lo];
    },
  };
}
