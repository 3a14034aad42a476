import { describe, expect, it } from 'vitest';
import { withoutArguments } from '../src/domain/request-arguments.js';

describe('withoutArguments', () => {
  it('drops quoted values, links, addresses and identifiers, keeping the operation', () => {
    expect(withoutArguments('open a pull request titled "Fix login redirect" into main')).toBe(
      'open a pull request titled into main',
    );
    expect(withoutArguments('scrape the prices from https://shop.example.com/sale into JSON')).toBe(
      'scrape the prices from into JSON',
    );
    expect(withoutArguments('shorten youtube.com/watch?v=abc and www.example.org')).toBe('shorten and');
    expect(withoutArguments('send the invoice to billing@customer.com through SendGrid')).toBe(
      'send the invoice to through SendGrid',
    );
    expect(withoutArguments('refund the last charge of customer cus_Q8x2 in full')).toBe(
      'refund the last charge of customer in full',
    );
    expect(withoutArguments('get the key session:4711 in Redis')).toBe('get the key in Redis');
    expect(withoutArguments('text +1 415 555 0123 now, then look up 8.8.4.4')).toBe('text now, then look up');
    expect(withoutArguments('insert {sku: "A-12", qty: 4} into MongoDB')).toBe('insert into MongoDB');
    expect(withoutArguments('read “Weekly sync” from Notion')).toBe('read from Notion');
    expect(withoutArguments("Where does the word 'salary' come from?")).toBe('Where does the word come from?');
    expect(withoutArguments('find the lyrics of ‘Hey Jude’ by the Beatles')).toBe('find the lyrics of by the Beatles');
  });

  it('takes no apostrophe for a quote', () => {
    for (const plain of [
      "what's the weather in my users' town",
      "don't send the users' emails twice",
      "find an API for 'text to speech'",
    ])
      expect(withoutArguments(plain)).toBe(plain);
  });

  it('keeps product and format names that hold digits', () => {
    const plain = 'upload a file to S3 from EC2, query Neo4j with Auth0, convert MP4 in 3D on k8s for 2027';
    expect(withoutArguments(plain)).toBe(plain);
  });

  it('keeps a request that is all argument', () => {
    expect(withoutArguments('"weather in Paris"')).toBe('"weather in Paris"');
  });

  it('keeps quoted words that are what is searched for, not a value passed', () => {
    for (const topic of [
      'find an API for "text to speech"',
      'an MCP server that does "web scraping"',
      'is there a tool for “OCR”?',
    ])
      expect(withoutArguments(topic)).toBe(topic);
    expect(withoutArguments('search the web for "best pizza in Rome"')).toBe('search the web for');
  });

  it('drops a city the request passes, keeping countries, regions and a city that opens it', () => {
    expect(withoutArguments('what will the temperature be in Lisbon tomorrow')).toBe(
      'what will the temperature be in tomorrow',
    );
    expect(withoutArguments('air quality in Delhi, and hotels in Kyoto.')).toBe('air quality in, and hotels in.');
    expect(withoutArguments('flights from London to New York')).toBe('flights from to New');
    for (const kept of [
      'Paris weather tomorrow',
      'look up a UK company in the register',
      'public holidays in Germany',
      'weather in paris',
      'alerts from New Relic',
    ])
      expect(withoutArguments(kept)).toBe(kept);
  });

  it('drops what a picture to be made shows, keeping what a picture to be found shows', () => {
    expect(withoutArguments('generate an image of a cat wearing a hard hat')).toBe('generate an image');
    expect(withoutArguments('Draw a cartoon logo showing a fox. Then upload it')).toBe(
      'Draw a cartoon logo. Then upload it',
    );
    expect(withoutArguments('create 4 product photos of our red sneaker on a white background')).toBe(
      'create 4 product photos',
    );
    for (const kept of [
      'show me a picture of a cat',
      'find photos of the Eiffel Tower',
      'generate a summary of this article',
      'make a list of images of cats',
    ])
      expect(withoutArguments(kept)).toBe(kept);
  });

  // Nested runs of word characters and joiners (`a_a_a…`) once took time exponential in their length.
  it('reads long runs of joiners, dots, digits and quotes in time linear in their length', () => {
    for (const run of [
      'a_',
      'a:',
      '_',
      'a.',
      'a@',
      '1 ',
      '1.',
      '"',
      "'",
      " 'a",
      '{',
      'a/',
      ' ,',
      'Lisbon ',
      'make ',
      'draw a ',
    ])
      expect(withoutArguments(`find ${run.repeat(20_000)}x`)).toContain('find');
    // Far past what linear time takes, far short of the square.
  }, 5_000);
});
