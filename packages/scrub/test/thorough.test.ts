import { describe, expect, it } from 'vitest';
import { detectPersonal, mergeFindings, PlaceholderNumbering, scrub, scrubAsync } from '../src/index.js';

const thorough = (text: string) => scrub(text, { tier: 'thorough' });
/** The values of one type the thorough tier adds, overlapping ones merged as `redact` merges them, in text order. */
const values = (type: string) => (text: string) =>
  mergeFindings(detectPersonal(text).filter((f) => f.type === type)).map((f) => text.slice(f.start, f.end));
const persons = values('person');
const addresses = values('street_address');
const personal = (text: string) => [...persons(text), ...addresses(text)];

describe('thorough tier: person names in the shapes transcripts carry', () => {
  it('mail and commit headers, with their email left to the email rule', () => {
    expect(thorough('From: Ana Souza <ana.souza@acme.io>\nSubject: rotate the key').text).toBe(
      'From: [PERSON_1] <[REDACTED:email]>\nSubject: rotate the key',
    );
    expect(persons('cc: J. Park, Ana Souza')).toEqual(['J. Park', 'Ana Souza']);
    expect(persons('commit 3ce0e49\nAuthor: Priya Raman <priya@example.com>\nDate:   Tue Nov 24 2026')).toEqual([
      'Priya Raman',
    ]);
    expect(persons('Co-authored-by: Lars Eriksen <lars@users.noreply.github.com>')).toEqual(['Lars Eriksen']);
    expect(persons('Signed-off-by: Wei Zhang <wei@example.org>')).toEqual(['Wei Zhang']);
  });

  it('mentions, but not scopes, versions, decorators or documentation tags', () => {
    expect(persons('@ana can you check the Redis config? ping @joao-silva too')).toEqual(['@ana', '@joao-silva']);
    const notHandles = ['npm i @axle/scrub', 'react@18.2.0', '@property\ndef f(self):', ' * @param text', 'git@x.io:a'];
    for (const t of notHandles) {
      expect(persons(t), t).toEqual([]);
    }
  });

  it('signatures, dialogue and name keys in JSON, YAML and TOML', () => {
    expect(persons('Thanks,\nMarta Kowalski\nStaff Engineer')).toEqual(['Marta Kowalski']);
    expect(persons('Nicole: Remember me?\nUbul: You saved my life!')).toEqual(['Nicole', 'Ubul']);
    expect(persons('{"name": "Ana Souza", "package": {"name": "@axle/scrub"}}')).toEqual(['Ana Souza']);
    expect(persons('authors = ["Ana Souza <ana@x.io>"]')).toEqual(['Ana Souza']);
    expect(persons('name: build\nowner: platform-team')).toEqual([]);
  });

  it('running text: known names, initials, titles, lists, lower case', () => {
    expect(persons('A great song by Jonas Nielsen.')).toEqual(['Jonas Nielsen']);
    expect(persons('Have you been to a Szabina J Gelencsér concert?')).toEqual(['Szabina J Gelencsér']);
    expect(persons('Mr. Baader flew to Lisbon.')).toEqual(['Baader']);
    expect(persons('our founders: Kónya, Becker and Vasquez.')).toEqual(['Kónya', 'Becker', 'Vasquez']);
    expect(persons('follow up with patricia desrosiers next week')).toEqual(['patricia desrosiers']);
    expect(persons('Mark Smith reviewed it; ask Ana Souza.')).toEqual(['Mark Smith', 'Ana Souza']);
  });

  it('names in other scripts that the lists hold', () => {
    expect(persons('Агата Абрамова met محمد and Zhang Wei.')).toEqual(['Агата Абрамова', 'محمد', 'Zhang Wei']);
  });

  it('leaves technical words alone: products, libraries, commands, units, identifiers', () => {
    for (const t of [
      'Run Jest with Redis and Kafka, then Claude Code calls useState; it took 40 ms.',
      'Jenkins restarts the Django app; Travis, Hugo and Winston are configured in CI.',
      'The Luhn check passes; Levenshtein distance 3; sorted by Dijkstra.',
      'Found 1 error in src/index.ts. Getting Started With The Redis Client',
      'TypeError: Cannot read properties of undefined (reading map) at SkillList (src/SkillList.tsx:24:23)',
      'drwxr-xr-x  5 runner runner  4096 Nov 24 09:12 dist',
    ]) {
      expect(personal(t), t).toEqual([]);
    }
  });
});

describe('thorough tier: street addresses', () => {
  it('US, UK, European and Latin American forms, with units, cities and postcodes', () => {
    // [before, address, after]
    const cases = [
      ['Ship it to ', '1600 Pennsylvania Avenue NW, Washington, DC 20500', '.'],
      ['Send it to ', 'Flat 3, 221B Baker Street, London NW1 6XE', ''],
      ['Adresse: ', 'Friedrichstraße 123, 3. OG, 10117 Berlin', ''],
      ['Our office is at ', 'Calle Mayor 5, 2º izquierda, 28013 Madrid', ''],
      ['Entrega: ', 'Av. Paulista 1578, apto 42, São Paulo - SP, 01310-200', ''],
      ['Mail: ', 'P.O. Box 1234, Springfield, IL 62704-1234', ''],
      ['lives at ', '86036 Rua do Arenque 1634, Goiânia', ''],
      ['Our offices are at ', 'USNS Møller\nFPO AA 85844', ''],
      ['meet at ', 'the corner of Dalbraut 99 and Frederikke Coves', ''],
    ];
    for (const [before, address, after] of cases) {
      expect(addresses(before + address + after), address).toEqual([address]);
    }
  });

  it('an address block: the street line and the short lines under it', () => {
    const text = 'William Hughes\n\n20789 Allika 46\n Suite 501\n Riisa\n\n Estonia 62488\nPhone: 555';
    expect(addresses(text)).toEqual(['20789 Allika 46\n Suite 501\n Riisa\n\n Estonia 62488']);
  });

  it('not versions, counts, sizes or times', () => {
    for (const t of [
      'Node 20 and Python 3.12 on Debian 12',
      'goroutine 1 [running]',
      'about 380 per 4 MB. Measured on 20,000 x 512 vectors',
      'route. After 1024 uploads it hits the ulimit',
      'Step 2: run Vitest 4 with --reporter verbose',
      'the corner of {street_name} and {street_name}',
    ]) {
      expect(addresses(t), t).toEqual([]);
    }
  });
});

describe('thorough tier: redaction and report', () => {
  it('numbered placeholders, the same for the same value, a lone surname taking its full name', () => {
    const r = thorough('Ask Ana Souza to rotate the key; Ana Souza owns billing. Souza moved to 20 Elm Street today.');
    expect(r.text).toBe(
      'Ask [PERSON_1] to rotate the key; [PERSON_1] owns billing. [PERSON_1] moved to [ADDRESS_1] today.',
    );
    expect(r.report).toMatchObject({ tier: 'thorough', counts: { person: 3, street_address: 1 }, clean: false });
    expect(r.report.patterns_matched).toEqual(['person', 'street_address']);
  });

  it('shares numbers between the fields of one draft when given one numbering', () => {
    const numbering = new PlaceholderNumbering();
    const fields = ['Ask Ana Souza about billing', 'Souza owns it; Lars Eriksen reviews.', 'cc: Ana Souza'];
    expect(fields.map((f) => scrub(f, { tier: 'thorough', numbering }).text)).toEqual([
      'Ask [PERSON_1] about billing',
      '[PERSON_1] owns it; [PERSON_2] reviews.',
      'cc: [PERSON_1]',
    ]);
  });

  it('keeps the fast tier as it was and adds its findings', async () => {
    const text = 'key ghp_1234567890abcdefghijABCDEFGHIJ123456 from Ana Souza';
    expect(scrub(text).text).toBe('key [REDACTED:github_token] from Ana Souza');
    expect(scrub(text).report.tier).toBeUndefined();
    const r = await scrubAsync(text, { tier: 'thorough' });
    expect(r.text).toBe('key [REDACTED:github_token] from [PERSON_1]');
    expect(r.report.counts).toEqual({ github_token: 1, person: 1 });
  });

  it('reads JSON-escaped text decoded, in original offsets', () => {
    const text = JSON.stringify({ content: 'Thanks,\nMarta Kowalski' });
    const r = thorough(text);
    expect(r.text).toBe(JSON.stringify({ content: 'Thanks,\n[PERSON_1]' }));
  });
});

describe('thorough tier: names a cue makes, places that stay', () => {
  const names = (text: string) =>
    scrub(text, { tier: 'thorough' })
      .findings.filter((f) => f.type === 'person')
      .map((f) => text.slice(f.start, f.end));

  it.each([
    ['Mrs. Baker called about the invoice.', ['Baker']],
    ['Hi, my name is vitoria and I need help.', ['vitoria']],
    ['Sometimes people call me višeslav.', ['višeslav']],
    ['Tomomi is from Osaka and works nights.', ['Tomomi']],
    ['Aloisia, can I please speak to your manager?', ['Aloisia']],
    ['"The market is moving that way," says Gerste.', ['Gerste']],
  ])('%j', (text, expected) => {
    expect(names(text)).toEqual(expected);
  });

  it.each([
    'I moved to New York last year.',
    'We met at New Orleans airport, then flew to San Francisco.',
    'Man of Many is a great album.',
    'Excuse me, Sir bot, but I do not like this tone.',
    'How can I request a new card pin?',
    'Startup took 1926 ms. Parsing and validating the catalog took 0.4 s.',
    'Microsoft said the outage is over; Kafka is from Apache.',
  ])('leaves alone: %j', (text) => {
    expect(names(text)).toEqual([]);
  });
});

describe('thorough tier: places, organisations, days, pronouns (gazetteer from compromise)', () => {
  const names = (text: string) =>
    scrub(text, { tier: 'thorough' })
      .findings.filter((f) => f.type === 'person')
      .map((f) => text.slice(f.start, f.end));

  it.each([
    // places and organisations the gazetteer holds, one word or several
    "I'm originally from Norway.",
    'We moved from Amsterdam to Kuala Lumpur, then to Brazil.',
    "I can't log in to the Wells Fargo app since the update.",
    'Morgan Stanley and Goldman Sachs both raised their forecasts.',
    "I'll be in Berlin and Vienna for a week.",
    'Do you deliver to Hong Kong and Singapore?',
    // the rest of a place's name after the place
    'Our offices in Tallinn Harbour are closed.',
    // words that end a place's or an organisation's name, after the run or as its last word
    'Queen Elizabeth Park is closed for renovation.',
    'I work for Conway Inc. now.',
    'The Davis, Reynolds and Williamson Orchestra was founded in 1977.',
    // a lone capitalised word after `in` or `near` is a place
    'We celebrated with a barbecue in Austin.',
    'The museum near Florence has a new exhibit.',
    // days
    'We met on Labor Day.',
    'He said the parcel would arrive before Christmas Eve.',
    // pronouns and contractions, and a sentence end that does not join two runs
    'Can I pay my bill with a card?',
    'May I ask why the transfer was declined?',
    'He lives on the north side of town.',
    'He moved to Norway. Can I follow him?',
    // dialogue labels that are everyday words, not in a run of speakers
    'Note: run it twice.\nSummary: it worked.',
    // a vocative that is no first name
    'Thanks a lot, Google!',
    // two unknown capitalised words in a technical sentence: a product
    'We run Hasura Kratos behind Docker and Redis.',
    // an everyday word opening a technical sentence, a product
    'Will is from the API team.',
    'Redis is from Redis Labs.',
    // code identifiers
    'const newYork = cities.get("NewYork"); // ManOfMany',
  ])('leaves alone: %j', (text) => {
    expect(names(text)).toEqual([]);
  });

  it.each([
    // a one-word place that is a surname after a first name; a first name and a surname ending like a place
    ['Marta Palermo signed the form.', ['Marta Palermo']],
    ['Ask Georgia Smith about it.', ['Georgia Smith']],
    ['I met Paris Hilton at the airport.', ['Paris Hilton']],
    ['Please ask Fletcher Hill about it.', ['Fletcher Hill']],
    ['Please ask J. Park about it.', ['J. Park']],
    // `at` is no place cue
    ['Enrico shouted at Gary: "What are you doing here?"', ['Enrico', 'Gary']],
    // the initial I is still an initial before a capitalised word
    ['Send it to John I. Smith today.', ['John I. Smith']],
    // a greeting cue, the contraction after it left alone
    ["Hi Freddy, I'm contacting you about a problem.", ['Freddy']],
    // two unknown capitalised words in a plain sentence
    ['I want to add Irenke Sörös as a beneficiary to my account.', ['Irenke Sörös']],
    // called by name at a sentence end
    ["Don't go to town, Mark!", ['Mark']],
    ['Remember me, Maria?', ['Maria']],
    // dialogue labels that are everyday words, in a run of speakers
    ['Ella: What a wife.\nDestiny: Remember me?', ['Ella', 'Destiny']],
    // a word in capitals too long for an acronym does not make a sentence technical
    ['Kevin had given Alma his address, SEINÄJOKI office.', ['Kevin', 'Alma']],
    // nor does the `>` of a quoted mail line
    ['> Tzigane Lantos\n> Fritz-Armstrong\n> 76556 29 Rue de Tanger', ['Tzigane Lantos']],
    // what only a person does decides, even in a sentence with an acronym
    ['Dzhambek is from Civic Impulse LLC', ['Dzhambek']],
  ])('%j', (text, expected) => {
    expect(names(text)).toEqual(expected);
  });
});
