import { describe, expect, it } from 'vitest';
import { FOCUS_MIN_WORDS, requestFocus } from '../src/domain/request-focus.js';

describe('requestFocus', () => {
  it.each([
    // The need after scene-setting, found by its cue.
    [
      'We are a team of five building a mobile app on AWS. Our tickets live in Jira and we chat in Slack. Right now I am trying to send SMS reminders to customers, what would you recommend?',
      'Right now I am trying to send SMS reminders to customers, what would you recommend?',
    ],
    // A label says which segment is the task and which the context, across lines too.
    [
      'Context: I run a small business and I am not very technical, but I use an AI assistant for a lot of things. Task: convert a CSV file to JSON',
      'convert a CSV file to JSON',
    ],
    [
      'Goal: convert scanned invoices into structured JSON.\nConstraints: must run on our own servers, no cloud upload.',
      'convert scanned invoices into structured JSON.',
    ],
    // An agent's restatement: who the user is is context.
    [
      'The user is a data scientist at a hospital. They want to pull the latest FDA drug recall notices into a dashboard every morning.',
      'They want to pull the latest FDA drug recall notices into a dashboard every morning.',
    ],
    // A question that names nothing wanted is chatter; the need cue elsewhere decides.
    [
      "I'm working on a side project this weekend with friends and we got stuck. Basically we need to merge several PDFs into one file. Is there something out there that can help with that?",
      'Basically we need to merge several PDFs into one file.',
    ],
    // No segment asks: the imperative one (neither asking nor setting the scene) is the need.
    [
      'Hey, quick question from our team: our manager brought this up at the sprint planning meeting. Compress a PNG image to make it smaller. We would prefer something with a free tier.',
      'Compress a PNG image to make it smaller.',
    ],
    // Curly apostrophes read as straight ones.
    [
      'Our support team answers tickets in Zendesk all day long. I’d like to translate incoming tickets from Spanish into English.',
      'I’d like to translate incoming tickets from Spanish into English.',
    ],
  ])('%j -> %j', (request, focus) => {
    expect(requestFocus(request)).toBe(focus);
  });

  it.each([
    // Short requests are their need, even in two segments.
    'how safe is this neighbourhood? crime stats before we sign a lease',
    'read and write files on my local disk',
    '',
    // One long sentence cannot be split.
    'I am planning a road trip across California next weekend and I want to know what the weather will be like in San Francisco and Los Angeles.',
    // Every segment asks: all of them are the need.
    'Can you help me figure out which of our servers are running out of disk space? We use Prometheus and Grafana for metrics and I want an agent to check them.',
    // Nothing asks and nothing is neutral: searched whole rather than emptied.
    'We run a small bakery in Lisbon with two shops. Our customers mostly order by phone. My sister handles the books in a spreadsheet.',
  ])('%j is searched whole', (request) => {
    expect(requestFocus(request)).toBe(request);
  });

  it('leaves requests of at most FOCUS_MIN_WORDS words alone', () => {
    const short = `We use Jira. ${Array.from({ length: FOCUS_MIN_WORDS - 7 }, () => 'x').join(' ')}. Need to send SMS.`;
    expect(short.split(/\s+/).length).toBeLessThanOrEqual(FOCUS_MIN_WORDS);
    expect(requestFocus(short)).toBe(short);
  });

  it('reads a bounded prefix of a huge request', () => {
    const huge = `${'We use Jira every day. '.repeat(50_000)}Task: send an SMS`;
    expect(requestFocus(huge)).toBe(huge);
    const early = `Task: send an SMS to my customers. ${'We use Jira every day. '.repeat(50_000)}`;
    expect(requestFocus(early)).toBe('send an SMS to my customers.');
  });

  // Found by timing each search-path function on inputs at its caps: a break tried from every space of a long run
  // made segmenting cost the square of the run's length.
  it('segments long runs of spaces in time linear in their length', () => {
    const words = Array.from({ length: FOCUS_MIN_WORDS + 1 }, (_, i) => `w${i}`).join(' ');
    const runs = [' ', ' \t', '\u00a0'].map((space) => `${words} i${space.repeat(2_000)}x`);
    for (const run of runs) expect(requestFocus(run)).toBe(run);
    const started = performance.now();
    for (let i = 0; i < 500; i++) for (const run of runs) requestFocus(run);
    // Linear: a small fraction of the bound; the quadratic split took several times it.
    expect(performance.now() - started).toBeLessThan(3_000);
  }, 30_000);
});
