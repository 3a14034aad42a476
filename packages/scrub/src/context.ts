import type { Redundancy } from './covered.js';
import { literalAlternation } from './regex-planner.js';
import { looksRandom } from './entropy.js';
import { isPlaceholder } from './placeholder.js';
import { charClass, runsOf } from './runs.js';
import type { Finding } from './types.js';

/** How far after a key-like word, on the same line, a token may start and still be taken as its value. */
const WINDOW = 48;
const MAX_TOKEN = 1024;
/** Longest match of the key-word patterns below, so that one ending inside the window is seen whole. */
const MAX_KEYWORD = 18;

/**
 * Whether a match of the global `keyword` ends at most WINDOW characters before `start` (and not after it), with
 * no line break in between. Tokens are rarer than key words ("key" is everywhere in code), so the rules below find
 * the tokens first and look back for a key word, instead of scanning the whole text for key words. The look-back
 * reads a bounded slice, one character wider on each side so that `\b` sees the true neighbours.
 */
export function keywordBefore(text: string, start: number, keyword: RegExp): boolean {
  const from = Math.max(0, start - WINDOW - MAX_KEYWORD);
  const base = Math.max(0, from - 1);
  const window = text.slice(base, start + 1);
  const lineStart = window.lastIndexOf('\n', start - base - 1) + 1;
  keyword.lastIndex = Math.max(from - base, lineStart);
  for (let m = keyword.exec(window); m; m = keyword.exec(window)) {
    const end = base + m.index + m[0].length;
    if (end > start) break;
    if (end + WINDOW > start) return true;
    keyword.lastIndex = m.index + 1;
  }
  return false;
}

/** Key-like words, and Hardhat's `accounts: [` (a network's list of the private keys it signs with). */
const ETH_KEYWORD = /priv|secret|signer|wallet|deployer|ethereum|\beth|\bpk\b|key|\baccounts["']?\s{0,3}:\s{0,3}\[/gi;
/** A 64-hex value, `0x` optional, as a whole run of letters and digits. */
const ALNUM = charClass('A-Za-z0-9');
const HEX64 = /^(?:0x)?[0-9a-fA-F]{64}$/;
/** Words that introduce the 64-hex values transcripts are full of: digests, commits, transactions, blocks. */
const DIGEST_CONTEXT = /sha|digest|hash|commit|checksum|integrity|etag|\btx|transaction|block|receipt|merkle|root/i;

const lineBefore = (text: string, start: number): string => {
  const window = text.slice(Math.max(0, start - WINDOW), start);
  return window.slice(window.lastIndexOf('\n') + 1);
};

/**
 * Ethereum private keys: any 64-hex string is a valid key, so only ones introduced by a key-like word count,
 * and never ones introduced as a digest, commit or transaction hash. Looked for inside `runs`, the text's
 * `tokenRuns`.
 */
export function findEthereumKeys(text: string, runs: readonly number[]): Finding[] {
  const found: Finding[] = [];
  const visit = (start: number, end: number): void => {
    if (end - start > 66 || !HEX64.test(text.slice(start, end)) || !keywordBefore(text, start, ETH_KEYWORD)) return;
    if (!DIGEST_CONTEXT.test(lineBefore(text, start))) found.push({ type: 'ethereum_private_key', start, end });
  };
  runsOf(text, ALNUM, 64, visit, runs);
  return found;
}

const KEY_WORD = new RegExp(
  literalAlternation([
    'key',
    'token',
    'secret',
    'passw',
    'pwd',
    'credential',
    'auth',
    'bearer',
    'api',
    'private',
    'signature',
  ]),
  'gi',
);
/** Token characters (base64, base64url, hex, JWT-ish); a token is a whole run of them, with its padding. */
const TOKEN_CHARS = charClass('A-Za-z0-9+/_.~-');
const MIN_TOKEN = 20;
const HIGH_ENTROPY = 'high_entropy_secret';
const FILE_LIKE = /^\.{0,2}\/|\/[a-z_-]{2,}\/|\.(?:[a-z]{1,4}|json|yaml|lock|html)$|^(?:[a-z0-9]+[-_.])+[a-z0-9]+$/;

/**
 * High-entropy tokens a key-like word introduces on the same line ("api key is 9fQ2..."), whatever their shape.
 * Paths, file names and lowercase identifiers are excluded even when random-looking. Looked for inside `runs`, the
 * text's `tokenRuns`. Tokens `covered` accounts for are not checked: on dense text most are values that the
 * assignment and vendor rules found.
 */
export function findHighEntropyNearKeyWords(text: string, runs: readonly number[], covered?: Redundancy): Finding[] {
  const found: Finding[] = [];
  const visit = (start: number, runEnd: number): void => {
    let end = runEnd;
    while (end < text.length && end - runEnd < 2 && text.charCodeAt(end) === 61) end++; // '=' padding
    if (covered?.(HIGH_ENTROPY, start, end)) return;
    if (end - start > MAX_TOKEN || !keywordBefore(text, start, KEY_WORD)) return;
    const t = text.slice(start, end);
    if (FILE_LIKE.test(t) || !looksRandom(t, MIN_TOKEN, 3.5)) return;
    if (isPlaceholder(t)) return;
    found.push({ type: HIGH_ENTROPY, start, end });
  };
  runsOf(text, TOKEN_CHARS, MIN_TOKEN, visit, runs);
  return found;
}
