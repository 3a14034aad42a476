import { looksRandom, shannonEntropy } from './entropy.js';
import { isPlaceholder } from './placeholder.js';
import type { Finding } from './types.js';

/** How far back, on the same line, a key-like word makes a token suspicious. */
const WINDOW = 48;

const lineBefore = (text: string, start: number): string => {
  const window = text.slice(Math.max(0, start - WINDOW), start);
  return window.slice(window.lastIndexOf('\n') + 1);
};

const HEX64 = /(?<![A-Za-z0-9])(?:0x)?[0-9a-fA-F]{64}(?![A-Za-z0-9])/g;
const ETH_CONTEXT = /priv|secret|signer|wallet|deployer|ethereum|\beth|\bpk\b|key/i;
/** Words that introduce the 64-hex values transcripts are full of: digests, commits, transactions, blocks. */
const DIGEST_CONTEXT = /sha|digest|hash|commit|checksum|integrity|etag|\btx|transaction|block|receipt|merkle|root/i;

/**
 * Ethereum private keys: any 64-hex string is a valid key, so only ones introduced by a key-like word count,
 * and never ones introduced as a digest, commit or transaction hash.
 */
export function findEthereumKeys(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(HEX64)) {
    const before = lineBefore(text, m.index);
    if (ETH_CONTEXT.test(before) && !DIGEST_CONTEXT.test(before)) {
      found.push({ type: 'ethereum_private_key', start: m.index, end: m.index + m[0].length });
    }
  }
  return found;
}

/** Maximal runs of token characters (base64, base64url, hex, JWT-ish); each character is scanned once. */
const TOKEN = /(?<![A-Za-z0-9+/_.~-])[A-Za-z0-9+/_.~-]{20,}={0,2}/g;
const KEY_WORD = /key|token|secret|passw|pwd|credential|auth|bearer|api|private|signature|session/i;
const FILE_LIKE = /^\.{0,2}\/|\/[a-z_-]{2,}\/|\.(?:[a-z]{1,4}|json|yaml|lock|html)$|^(?:[a-z0-9]+[-_.])+[a-z0-9]+$/;
const MAX_TOKEN = 1024;

/**
 * High-entropy tokens a key-like word introduces on the same line ("api key is 9fQ2..."), whatever their shape.
 * Paths, file names and lowercase identifiers are excluded even when random-looking.
 */
export function findHighEntropyNearKeyWords(text: string): Finding[] {
  const found: Finding[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0];
    if (t.length > MAX_TOKEN || FILE_LIKE.test(t) || isPlaceholder(t)) continue;
    if (!looksRandom(t, 20) || shannonEntropy(t) < 3.5) continue;
    if (!KEY_WORD.test(lineBefore(text, m.index))) continue;
    found.push({ type: 'high_entropy_secret', start: m.index, end: m.index + t.length });
  }
  return found;
}
