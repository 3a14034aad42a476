import { describe, expect, it } from 'vitest';
import { type FeedbackOptions, feedbackTerms, MIN_FEEDBACK_WORD } from '../src/domain/feedback-terms.js';

const opts: FeedbackOptions = { docs: 3, minDocs: 2, maxPool: 3, max: 5 };
const pool = [
  'speech tts ElevenLabs: lifelike speech synthesis',
  'tts speech IBM Text to Speech: natural voices',
  'entertainment Techy: tech-savvy sounding phrases',
  'audio Audio Tools: trim and merge audio files',
  'audio Podcasts: search podcast episodes',
];

describe('feedbackTerms', () => {
  it('returns the words enough of the first records share, most shared first', () => {
    expect(feedbackTerms('read this paragraph aloud', pool, opts)).toEqual(['speech', 'tts']);
  });

  it('leaves out the request’s own words, plural or not', () => {
    expect(feedbackTerms('speech to text', pool, opts)).toEqual(['tts']);
    expect(feedbackTerms('TTS please', pool, opts)).toEqual(['speech']);
    // A record's plural is the request's singular.
    const voices = ['voices alpha', 'voices alpha', 'other'];
    expect(feedbackTerms('a human voice', voices, opts)).toEqual(['alpha']);
    expect(feedbackTerms('a human tone', voices, opts)).toEqual(['voices', 'alpha']);
  });

  it('leaves out words held by fewer than minDocs of the first records', () => {
    // `audio` is held by the last two records, none of the first three.
    expect(feedbackTerms('read aloud', pool, opts)).not.toContain('audio');
    expect(feedbackTerms('read aloud', pool, { ...opts, docs: 4 })).not.toContain('audio');
    expect(feedbackTerms('read aloud', pool, { ...opts, docs: 5 })).toContain('audio');
    expect(feedbackTerms('read aloud', pool, { ...opts, minDocs: 3 })).toEqual([]);
  });

  it('leaves out words more than maxPool of all the records hold', () => {
    const common = pool.map((text) => `${text} api`);
    expect(feedbackTerms('read aloud', common, { ...opts, maxPool: 5 })).toContain('api');
    expect(feedbackTerms('read aloud', common, { ...opts, maxPool: 4 })).not.toContain('api');
  });

  it('puts the words fewer records of the pool hold first among equally shared ones, then the first seen', () => {
    const records = ['alpha beta gamma', 'alpha beta gamma', 'other', 'beta', 'gamma delta'];
    expect(feedbackTerms('x', records, { docs: 2, minDocs: 2, maxPool: 5, max: 5 })).toEqual([
      'alpha',
      'beta',
      'gamma',
    ]);
    expect(feedbackTerms('x', records, { docs: 2, minDocs: 2, maxPool: 5, max: 1 })).toEqual(['alpha']);
  });

  it('counts a word once a record, and skips stopwords and words shorter than MIN_FEEDBACK_WORD', () => {
    expect(MIN_FEEDBACK_WORD).toBe(3);
    const records = ['echo echo echo', 'the and of ab ab', 'the and of ab'];
    expect(feedbackTerms('x', records, { docs: 3, minDocs: 2, maxPool: 3, max: 5 })).toEqual([]);
  });

  it('leaves out the words it is told to ignore', () => {
    expect(feedbackTerms('read this paragraph aloud', pool, { ...opts, ignore: new Set(['tts']) })).toEqual(['speech']);
    expect(feedbackTerms('read this paragraph aloud', pool, { ...opts, ignore: new Set() })).toEqual(['speech', 'tts']);
  });

  it('returns nothing without records or with max 0', () => {
    expect(feedbackTerms('read aloud', [], opts)).toEqual([]);
    expect(feedbackTerms('read aloud', pool, { ...opts, max: 0 })).toEqual([]);
  });
});
