import { literalAlternation } from './engine.js';
import { looksRandom, shannonEntropy } from './entropy.js';
import { isPlaceholder } from './placeholder.js';
import type { Finding } from './types.js';

/** How far after a key-like word, on the same line, a token may start and still be taken as its value. */
const WINDOW = 48;
const MAX_TOKEN = 1024;

/**
 * Calls `visit` for each token that starts within WINDOW characters after a match of `keyword`, on the same
 * line. Searching for the rare keyword first keeps the cost off ordinary text. Starts are searched in a short
 * slice (the window plus `minLength`, enough to see that a token is long enough), then each token is re-read
 * whole from the full text with the sticky `tokenAt`, so dense keywords cost a bounded amount each.
 */
function tokensAfterKeywords(
  text: string,
  keyword: RegExp,
  token: RegExp,
  tokenAt: RegExp,
  minLength: number,
  visit: (start: number, value: string) => void,
): void {
  let scannedTo = 0;
  for (const k of text.matchAll(keyword)) {
    const from = Math.max(k.index + k[0].length, scannedTo);
    // The end of the line matters only up to the end of the slice below: searching further would read the rest
    // of a long line once per keyword on it.
    const limit = Math.min(text.length, k.index + k[0].length + WINDOW + minLength + 2);
    let lineEnd = from;
    while (lineEnd < limit && text.charCodeAt(lineEnd) !== 10) lineEnd++;
    const windowEnd = Math.min(lineEnd, k.index + k[0].length + WINDOW);
    if (from >= windowEnd) continue;
    const base = Math.max(0, from - 1); // one character back, for the pattern's leading boundary check
    const slice = text.slice(base, Math.min(lineEnd, windowEnd + minLength + 2));
    token.lastIndex = from - base;
    for (let m = token.exec(slice); m && base + m.index < windowEnd; m = token.exec(slice)) {
      tokenAt.lastIndex = base + m.index;
      const whole = tokenAt.exec(text);
      if (whole && whole[0].length <= MAX_TOKEN) visit(base + m.index, whole[0]);
    }
    scannedTo = windowEnd;
  }
}

const ETH_KEYWORD = /priv|secret|signer|wallet|deployer|ethereum|\beth|\bpk\b|key/gi;
const HEX64 = /(?<![A-Za-z0-9])(?:0x)?[0-9a-fA-F]{64}(?![A-Za-z0-9])/g;
const HEX64_AT = /(?:0x)?[0-9a-fA-F]{64}(?![A-Za-z0-9])/y;
/** Words that introduce the 64-hex values transcripts are full of: digests, commits, transactions, blocks. */
const DIGEST_CONTEXT = /sha|digest|hash|commit|checksum|integrity|etag|\btx|transaction|block|receipt|merkle|root/i;

const lineBefore = (text: string, start: number): string => {
  const window = text.slice(Math.max(0, start - WINDOW), start);
  return window.slice(window.lastIndexOf('\n') + 1);
};

/**
 * Ethereum private keys: any 64-hex string is a valid key, so only ones introduced by a key-like word count,
 * and never ones introduced as a digest, commit or transaction hash.
 */
export function findEthereumKeys(text: string): Finding[] {
  const found: Finding[] = [];
  tokensAfterKeywords(text, ETH_KEYWORD, HEX64, HEX64_AT, 66, (start, value) => {
    if (!DIGEST_CONTEXT.test(lineBefore(text, start))) {
      found.push({ type: 'ethereum_private_key', start, end: start + value.length });
    }
  });
  return found;
}

const KEY_WORD = new RegExp(
  literalAlternation(['key', 'token', 'secret', 'passw', 'pwd', 'credential', 'auth', 'bearer', 'api', 'private', 'signature']),
  'gi',
);
/** Runs of token characters (base64, base64url, hex, JWT-ish), whole runs only. */
const TOKEN = /(?<![A-Za-z0-9+/_.~-])[A-Za-z0-9+/_.~-]{20,}={0,2}/g;
const TOKEN_AT = /[A-Za-z0-9+/_.~-]{20,}={0,2}/y;
const FILE_LIKE = /^\.{0,2}\/|\/[a-z_-]{2,}\/|\.(?:[a-z]{1,4}|json|yaml|lock|html)$|^(?:[a-z0-9]+[-_.])+[a-z0-9]+$/;

/**
 * High-entropy tokens a key-like word introduces on the same line ("api key is 9fQ2..."), whatever their shape.
 * Paths, file names and lowercase identifiers are excluded even when random-looking.
 */
export function findHighEntropyNearKeyWords(text: string): Finding[] {
  const found: Finding[] = [];
  tokensAfterKeywords(text, KEY_WORD, TOKEN, TOKEN_AT, 20, (start, t) => {
    if (FILE_LIKE.test(t) || !looksRandom(t, 20) || shannonEntropy(t) < 3.5) return;
    if (isPlaceholder(t)) return;
    found.push({ type: 'high_entropy_secret', start, end: start + t.length });
  });
  return found;
}
