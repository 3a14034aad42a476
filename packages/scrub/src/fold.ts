/**
 * The text as a pattern should read it, whatever its writer did to dodge one: compatibility forms folded (NFKC:
 * full-width and styled letters), accents and invisible format characters (zero-width, bidi controls, tag
 * characters) dropped, look-alike Cyrillic and Greek letters mapped to Latin inside words that mix them with Latin
 * ones (a Russian word stays Russian), lower case, every run of white space at most two
 * characters (a wider gap still parts spelt-out words), and letters spelt out one at a time (`i g n o r e`, `i.g.n.o.r.e`) joined. `toOriginal` maps an offset
 * of the folded text back to the original, so a finding can point at what the writer wrote.
 */
export interface FoldedText {
  text: string;
  toOriginal(offset: number): number;
}

/** Cyrillic, Greek and other letters that look like Latin ones (lower case; folding lower-cases first). */
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a', в: 'b', е: 'e', ё: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x',
  і: 'i', ї: 'i', ј: 'j', ѕ: 's', ԁ: 'd', ԛ: 'q', ԝ: 'w', һ: 'h', ӏ: 'l', ɡ: 'g', ɑ: 'a', ı: 'i', ȷ: 'j',
  α: 'a', β: 'b', ε: 'e', η: 'n', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x', ω: 'w',
  ᴀ: 'a', ʙ: 'b', ᴄ: 'c', ᴅ: 'd', ᴇ: 'e', ɢ: 'g', ʜ: 'h', ɪ: 'i', ᴊ: 'j', ᴋ: 'k', ʟ: 'l', ᴍ: 'm', ɴ: 'n',
  ᴏ: 'o', ᴘ: 'p', ʀ: 'r', ꜱ: 's', ᴛ: 't', ᴜ: 'u', ᴠ: 'v', ᴡ: 'w', ʏ: 'y', ᴢ: 'z',
};
const DROPPED = /[\p{M}\p{Cf}]/u;
const SPACE = /\s/u;
/** A word with a Latin letter and a letter of another script. */
const WORD = /[\p{L}\p{M}\p{Cf}]+/gu;
const LATIN = /\p{Script=Latin}/u;
const OTHER = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;
/** Four or more single letters between separators: a word spelt out. */
const SPELT = /(?<![\p{L}\p{N}])\p{L}(?:[ .\-_*]\p{L}){3,}(?![\p{L}\p{N}])/gu;

/** Folds `text` (see FoldedText). Linear in the text's length. */
export function foldText(text: string): FoldedText {
  const mixed = new Uint8Array(text.length);
  for (const m of text.matchAll(WORD))
    if (LATIN.test(m[0]) && OTHER.test(m[0])) mixed.fill(1, m.index, m.index + m[0].length);
  let out = '';
  const from: number[] = [];
  let i = 0;
  let spaces = 0;
  for (const ch of text) {
    const at = i;
    i += ch.length;
    for (const piece of ch.normalize('NFKD')) {
      if (DROPPED.test(piece)) continue;
      if (SPACE.test(piece)) {
        // At most two: a wider gap still parts the words of `i g n o r e   a l l` from each other.
        if (spaces === 2 || (spaces === 0 && out.length === 0)) continue;
        out += piece === '\n' ? '\n' : ' ';
        from.push(at);
        spaces++;
        continue;
      }
      const lower = piece.toLowerCase();
      for (const c of lower.normalize('NFKC')) {
        const folded = (mixed[at] === 1 && LOOKALIKES[c]) || c;
        out += folded;
        for (let k = 0; k < folded.length; k++) from.push(at);
      }
      spaces = 0;
    }
  }
  const joined = joinSpelt(out, from);
  const map = joined.from;
  return {
    text: joined.text,
    toOriginal: (offset) => (offset >= map.length ? text.length : offset < 0 ? 0 : map[offset]!),
  };
}

/** `i g n o r e` as `ignore`, with the offsets of the letters kept. */
function joinSpelt(text: string, from: number[]): { text: string; from: number[] } {
  if (!SPELT.test(text)) return { text, from };
  SPELT.lastIndex = 0;
  let out = '';
  const map: number[] = [];
  let last = 0;
  for (const m of text.matchAll(SPELT)) {
    out += text.slice(last, m.index);
    map.push(...from.slice(last, m.index));
    for (let k = 0; k < m[0].length; k += 2) {
      out += m[0][k];
      map.push(from[m.index + k]!);
    }
    last = m.index + m[0].length;
  }
  out += text.slice(last);
  map.push(...from.slice(last));
  return { text: out, from: map };
}
