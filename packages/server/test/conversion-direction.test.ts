import { describe, expect, it } from 'vitest';
import { conversionPairs, offPathConversion } from '../src/domain/conversion-direction.js';

describe('conversionPairs', () => {
  it.each([
    ['transcribe speech to text', ['speech>text']],
    ['IBM Text to Speech', ['text>speech']],
    ['ibm-text-to-speech', ['text>speech']],
    ['convert a CSV file into JSON', ['fil>json']],
    ['pdf2docx converter', ['pdf>docx']],
    ['from English to Spanish and back', ['english>spanish']],
    // Articles and pronouns end no conversion; nor does a word of one letter or the same word twice.
    ['send it to the team', []],
    ['a to b', []],
    ['day to day', []],
    ['to', []],
    ['text to', []],
    ['', []],
  ])('%j -> %j', (text, pairs) => {
    expect(conversionPairs(text)).toEqual(pairs);
  });
});

describe('offPathConversion', () => {
  const request = conversionPairs('speech to text');
  it('holds for a record that names the conversion only the other way round', () => {
    expect(offPathConversion(request, conversionPairs('Text to speech with 40 voices'))).toBe(true);
  });
  it('not for a record that names it both ways, or only its way, or not at all', () => {
    expect(offPathConversion(request, conversionPairs('Speech to text and text to speech'))).toBe(false);
    expect(offPathConversion(request, conversionPairs('Speech-to-text in 30 languages'))).toBe(false);
    expect(offPathConversion(request, conversionPairs('Transcribes audio files'))).toBe(false);
    expect(offPathConversion([], conversionPairs('Text to speech'))).toBe(false);
  });
  it('holds for a record whose conversion ends where the request starts or starts where it ends', () => {
    expect(
      offPathConversion(conversionPairs('convert Markdown to HTML'), conversionPairs('anything to Markdown')),
    ).toBe(true);
    expect(offPathConversion(conversionPairs('convert a CSV file to JSON'), conversionPairs('JSON to JSONP'))).toBe(
      true,
    );
  });
  it('not for a record that converts from the same source or into the same target', () => {
    const geocode = conversionPairs('turn a street address into latitude');
    expect(offPathConversion(geocode, conversionPairs('addresses to coordinates'))).toBe(false);
    expect(offPathConversion(conversionPairs('CSV to JSON'), conversionPairs('XML to JSON'))).toBe(false);
  });
  it('compares light stems: files and file, images and image', () => {
    expect(offPathConversion(conversionPairs('turn images into text'), conversionPairs('text to image'))).toBe(true);
  });
});
