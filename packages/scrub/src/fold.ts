/**
 * The text as a pattern should read it, whatever its writer did to dodge one: compatibility forms folded (NFKC:
 * full-width and styled letters), accents and invisible format characters (zero-width, bidi controls, tag
 * characters) dropped, look-alike Cyrillic and Greek letters mapped to Latin inside words that mix them with Latin
 * ones (a Russian word stays Russian), lower case, regional indicator symbols read as their letters, other emoji as
 * white space (`ignore 👉 all 👉 previous`), every run of white space at most two
 * characters (a wider gap still parts spelt-out words), and letters spelt out one at a time (`i g n o r e`, `i.g.n.o.r.e`) joined. `toOriginal` maps an offset
 * of the folded text back to the original, so a finding can point at what the writer wrote.
 */
export interface FoldedText {
  text: string;
  toOriginal(offset: number): number;
}

/** Cyrillic, Greek and other letters that look like Latin ones (lower case; folding lower-cases first). */
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  ɡ: 'g',
  ɑ: 'a',
  ı: 'i',
  ȷ: 'j',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  ᴀ: 'a',
  ʙ: 'b',
  ᴄ: 'c',
  ᴅ: 'd',
  ᴇ: 'e',
  ɢ: 'g',
  ʜ: 'h',
  ɪ: 'i',
  ᴊ: 'j',
  ᴋ: 'k',
  ʟ: 'l',
  ᴍ: 'm',
  ɴ: 'n',
  ᴏ: 'o',
  ᴘ: 'p',
  ʀ: 'r',
  ꜱ: 's',
  ᴛ: 't',
  ᴜ: 'u',
  ᴠ: 'v',
  ᴡ: 'w',
  ʏ: 'y',
  ᴢ: 'z',
};
/** The Latin letter a lower-case Cyrillic, Greek or small-capital letter looks like, if any (`р` -> `p`). */
export const latinLookalike = (letter: string): string | undefined => LOOKALIKES[letter];
const DROPPED = /[\p{M}\p{Cf}]/u;
const SPACE = /\s/u;
/** The regional indicator symbol letter A (U+1F1E6); Z is 25 further. */
const REGIONAL_A = 0x1f1e6;
/** Emoji and pictographs: between words they part them as a space would. */
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** A word with a Latin letter and a letter of another script. */
const WORD = /[\p{L}\p{M}\p{Cf}]+/gu;
const LATIN = /\p{Script=Latin}/u;
const OTHER = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;
/** Three or more single letters between separators: a word spelt out. */
const SPELT = /(?<![\p{L}\p{N}])\p{L}(?:[ .\-_*]\p{L}){2,}(?![\p{L}\p{N}])/gu;

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);

/** Folds `text` (see FoldedText). Linear in the text's length; runs of ASCII are copied whole. */
export function foldText(text: string): FoldedText {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
  const ascii = !/[^\u0000-\u007f]/.test(text);
  // Plain ASCII with single and double spaces and line breaks folds to its lower case, offset for offset.
  if (ascii && !/[\t\r\v\f]|\s{3}/.test(text)) {
    const lower = text.toLowerCase();
    SPELT.lastIndex = 0;
    if (!SPELT.test(lower)) return { text: lower, toOriginal: (o) => Math.min(Math.max(o, 0), text.length) };
    const identity = new Int32Array(text.length);
    for (let k = 0; k < identity.length; k++) identity[k] = k;
    const joined = joinSpelt(lower, identity);
    return {
      text: joined.text,
      toOriginal: (o) => (o >= joined.from.length ? text.length : o < 0 ? 0 : joined.from[o]!),
    };
  }
  const mixed = new Uint8Array(ascii ? 0 : text.length);
  if (!ascii)
    for (const m of text.matchAll(WORD))
      if (LATIN.test(m[0]) && OTHER.test(m[0])) mixed.fill(1, m.index, m.index + m[0].length);
  const parts: string[] = [];
  let from = new Int32Array(text.length + 16);
  let n = 0;
  const map = (at: number) => {
    if (n === from.length) {
      const grown = new Int32Array(from.length * 2);
      grown.set(from);
      from = grown;
    }
    from[n++] = at;
  };
  let spaces = 0;
  const space = (newline: boolean, at: number) => {
    // At most two: a wider gap still parts the words of `i g n o r e   a l l` from each other.
    if (spaces === 2) return;
    parts.push(newline ? '\n' : ' ');
    map(at);
    spaces++;
  };
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      if (isSpace(c)) {
        space(c === 10, i);
        i++;
        continue;
      }
      let j = i + 1;
      while (j < text.length) {
        const d = text.charCodeAt(j);
        if (d >= 128 || isSpace(d)) break;
        j++;
      }
      parts.push(text.slice(i, j).toLowerCase());
      for (let k = i; k < j; k++) map(k);
      spaces = 0;
      i = j;
      continue;
    }
    const at = i;
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    i += ch.length;
    const cp = ch.codePointAt(0)!;
    if (cp >= REGIONAL_A && cp < REGIONAL_A + 26) {
      // A regional indicator symbol reads as its letter (🇮🇬🇳… spells a word).
      parts.push(String.fromCharCode(97 + cp - REGIONAL_A));
      map(at);
      spaces = 0;
      continue;
    }
    if (PICTOGRAPH.test(ch)) {
      space(false, at);
      continue;
    }
    for (const piece of ch.normalize('NFKD')) {
      if (DROPPED.test(piece)) continue;
      if (SPACE.test(piece)) {
        space(piece === '\n', at);
        continue;
      }
      for (const l of piece.toLowerCase().normalize('NFKC')) {
        const folded = (mixed[at] === 1 && LOOKALIKES[l]) || l;
        parts.push(folded);
        for (let k = 0; k < folded.length; k++) map(at);
      }
      spaces = 0;
    }
  }
  const joined = joinSpelt(parts.join(''), from.subarray(0, n));
  const offsets = joined.from;
  return {
    text: joined.text,
    toOriginal: (offset) => (offset >= offsets.length ? text.length : offset < 0 ? 0 : offsets[offset]!),
  };
}

/** `i g n o r e` as `ignore`, with the offsets of the letters kept. */
function joinSpelt(text: string, from: Int32Array): { text: string; from: Int32Array } {
  SPELT.lastIndex = 0;
  if (!SPELT.test(text)) return { text, from };
  SPELT.lastIndex = 0;
  const parts: string[] = [];
  const map = new Int32Array(from.length);
  let n = 0;
  let last = 0;
  for (const m of text.matchAll(SPELT)) {
    parts.push(text.slice(last, m.index));
    map.set(from.subarray(last, m.index), n);
    n += m.index - last;
    for (let k = 0; k < m[0].length; k += 2) {
      parts.push(m[0][k]!);
      map[n++] = from[m.index + k]!;
    }
    last = m.index + m[0].length;
  }
  parts.push(text.slice(last));
  map.set(from.subarray(last), n);
  n += from.length - last;
  return { text: parts.join(''), from: map.subarray(0, n) };
}
