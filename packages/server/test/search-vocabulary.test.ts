import { describe, expect, it } from 'vitest';
import { wholeWordPieces } from '../src/search/vocabulary.js';

describe('wholeWordPieces', () => {
  it('calls the words the sentence model reads as one piece ordinary, and product names not', async () => {
    const ordinary = await wholeWordPieces();
    for (const w of ['stream', 'coffee', 'make', 'effect', 'country', 'time']) expect(ordinary(w), w).toBe(true);
    for (const w of ['okta', 'trello', 'giphy', 'sendgrid', 'notion', 'slack']) expect(ordinary(w), w).toBe(false);
    // The vocabulary is read as it is: a word is asked for in lower case.
    expect(ordinary('Stream')).toBe(false);
  });
});
