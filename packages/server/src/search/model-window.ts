/** The graph's ClipToMaxLength bound: tokens past it do not change a vector. */
export const MAX_TOKENS = 128;
/** The longest piece in the model's vocabulary, in code points (checked by a test). */
export const MAX_PIECE = 16;
/** Code points of normalised text that can hold MAX_TOKENS tokens. */
export const MAX_WINDOW = MAX_TOKENS * MAX_PIECE;

/**
 * The part of `text` the model can see, NFKC-normalised as the tokenizer normalises it. No piece
 * spans a space and each covers at most MAX_PIECE code points, so the graph's tokens all lie in the
 * first MAX_TOKENS words and the first MAX_WINDOW code points: a text cut to both tokenizes to the
 * same kept tokens (unless one word crosses MAX_WINDOW), and the tokenizer, whose work grows with the
 * square of its input, walks a bounded text however far normalisation expanded the query.
 */
export function modelWindow(text: string): string {
  const normalized = text.normalize('NFKC');
  let words = 0;
  let points = 0;
  for (let i = 0; i < normalized.length; i++) {
    const code = normalized.charCodeAt(i);
    if (code === 0x20 && ++words === MAX_TOKENS) return normalized.slice(0, i);
    if (isLowSurrogate(code) && i > 0 && isHighSurrogate(normalized.charCodeAt(i - 1))) continue;
    if (++points > MAX_WINDOW) return normalized.slice(0, i);
  }
  return normalized;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
