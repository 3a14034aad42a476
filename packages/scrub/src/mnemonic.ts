import { createHash } from 'node:crypto';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { charClass, runsOf } from './runs.js';
import type { Finding } from './types.js';

const WORDS: ReadonlyMap<string, number> = new Map(english.map((w, i) => [w, i]));
const LENGTHS = [24, 21, 18, 15, 12] as const;
/** Shortest text twelve words can take: 3-letter words with single separators. */
const MIN_STRETCH = 12 * 4 - 1;
const WORD = /[a-z]+/g;
/** Twelve words of wordlist length (3 to 8 letters) in a row: a stretch without them holds no phrase. */
const TWELVE_WORDS = /(?<![a-z])(?:[a-z]{3,8}[^a-z]+){11}[a-z]{3,8}(?![a-z])/;
const CONTEXT = /seed|mnemonic|recovery|phrase|secret/i;

/** The characters a written seed phrase is made of: lowercase words, separators, list numbering. */
const PHRASE_CHARS = charClass('a-z0-9 ,.)\t\r\n');

/** BIP39: the words encode entropy followed by a SHA-256 checksum of length (words * 11) / 33 bits. */
export function bip39ChecksumValid(words: readonly string[]): boolean {
  if (!(LENGTHS as readonly number[]).includes(words.length)) return false;
  let bits = '';
  for (const w of words) {
    const index = WORDS.get(w);
    if (index === undefined) return false;
    bits += index.toString(2).padStart(11, '0');
  }
  const checksumBits = words.length / 3;
  const entropyBits = bits.slice(0, bits.length - checksumBits);
  const entropy = Buffer.alloc(entropyBits.length / 8);
  for (let i = 0; i < entropy.length; i++) entropy[i] = Number.parseInt(entropyBits.slice(i * 8, i * 8 + 8), 2);
  const hash = createHash('sha256').update(entropy).digest();
  const expected = [...hash]
    .map((b) => b.toString(2).padStart(8, '0'))
    .join('')
    .slice(0, checksumBits);
  return bits.slice(-checksumBits) === expected;
}

export function isBip39Word(w: string): boolean {
  return WORDS.has(w);
}

/**
 * Runs of wordlist words long enough to be a seed phrase. A run is reported when some 12 to 24 word window in it
 * passes the BIP39 checksum (a random English sentence passes 1 time in 16 at best, and 12 wordlist words in a
 * row are already rare), or when the run itself is 12 words or more right after a word like "seed" or "mnemonic".
 * Only stretches of lowercase words and separators long enough to hold twelve words are split into words.
 */
export function findMnemonics(text: string): Finding[] {
  const found: Finding[] = [];
  runsOf(text, PHRASE_CHARS, MIN_STRETCH, (from, to) => findInStretch(text, from, to, found));
  return found;
}

function findInStretch(text: string, from: number, to: number, found: Finding[]): void {
  const stretch = text.slice(from, to);
  // Most stretches are prose or code comments: a native regex rules them out faster than splitting them into words.
  if (!TWELVE_WORDS.test(stretch)) return;
  let run: { word: string; start: number; end: number }[] = [];
  const flush = () => {
    if (run.length >= 12) {
      const span = validWindow(run.map((r) => r.word));
      const before = text.slice(Math.max(0, run[0].start - 40), run[0].start);
      if (span) found.push({ type: 'bip39_mnemonic', start: run[span[0]].start, end: run[span[1] - 1].end });
      else if (CONTEXT.test(before))
        found.push({ type: 'bip39_mnemonic', start: run[0].start, end: run[run.length - 1].end });
    }
    run = [];
  };
  WORD.lastIndex = 0;
  for (let m = WORD.exec(stretch); m; m = WORD.exec(stretch)) {
    const start = from + m.index;
    // A word glued to a capital letter before the stretch is part of a longer word.
    const glued = m.index === 0 && /[A-Za-z]/.test(text[start - 1] ?? '');
    if (glued || !WORDS.has(m[0])) flush();
    else run.push({ word: m[0], start, end: start + m[0].length });
  }
  flush();
}

/** The widest checksum-valid window [from, to) of a run, longest lengths first; bounded so a huge run stays cheap. */
function validWindow(words: readonly string[]): [number, number] | undefined {
  for (const n of LENGTHS) {
    for (let i = 0; i + n <= words.length && i < 64; i++) {
      if (bip39ChecksumValid(words.slice(i, i + n))) return [i, i + n];
    }
  }
  return undefined;
}
