import { describe, expect, it } from 'vitest';
import { DEVELOPER_VOCABULARY } from '../src/domain/developer-vocabulary.js';
import {
  compileThesaurus,
  expandedSentence,
  expansionTerms,
  MAX_EXPANDED_WORDS,
  MAX_EXPANSION_TERMS,
  MAX_PHRASE_WORDS,
  matchForm,
  textWords,
} from '../src/domain/query-expansion.js';

const t = compileThesaurus([
  'local disk|hard drive|files => filesystem',
  'disk => storage',
  'speech to text|transcribe => transcription stt whisper',
  'text => words',
  'a => b',
  'b => a',
]);

describe('textWords and matchForm', () => {
  it('split on anything but letters and digits, lower-cased and NFKC-normalised', () => {
    expect(textWords('Read/write FILES — on my "local-disk", ＰＯＳＴＧＲＥＳ 16!')).toEqual([
      'read',
      'write',
      'files',
      'on',
      'my',
      'local',
      'disk',
      'postgres',
      '16',
    ]);
    expect(textWords('  ...  ')).toEqual([]);
  });

  it('drop accents unless asked to keep them, as the lexical index folds them', () => {
    expect(textWords("a Pokémon's stats at the Café Crème, Gdańsk")).toEqual([
      'a',
      'pokemon',
      's',
      'stats',
      'at',
      'the',
      'cafe',
      'creme',
      'gdansk',
    ]);
    expect(textWords('Pokémon', false)).toEqual(['pokémon']);
    expect(expansionTerms('résumé parsing', compileThesaurus(['resume parsing => cv']))).toEqual(['cv']);
  });

  it("drop a plural's final s, but not of a short word or of -ss, -us, -is", () => {
    expect(['files', 'quotes', 'gas', 'address', 'status', 'analysis', 'file'].map(matchForm)).toEqual([
      'file',
      'quote',
      'gas',
      'address',
      'status',
      'analysis',
      'file',
    ]);
  });

  it('keep the s of words that are no plural, so "news" is not "new"', () => {
    expect(['news', 'series', 'always'].map(matchForm)).toEqual(['news', 'series', 'always']);
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    expect(expansionTerms('create a new branch', v)).not.toContain('headlines');
    expect(expansionTerms('cheap flights to New York', v)).not.toContain('headlines');
    expect(expansionTerms('latest news', v)).toContain('headlines');
  });
});

describe('expansionTerms', () => {
  it('adds the terms of the phrases a request holds, on whole words, plurals alike', () => {
    expect(expansionTerms('read and write files on my local disk', t)).toEqual(['filesystem']);
    expect(expansionTerms('Transcribe this meeting', t)).toEqual(['transcription', 'stt', 'whisper']);
    expect(expansionTerms('hard drives', t)).toEqual(['filesystem']);
    // Part of a word is no match.
    expect(expansionTerms('diskette transcriber', t)).toEqual([]);
  });

  it('matches the longest phrase at each word, without overlap', () => {
    // "speech to text" wins over "text"; "local disk" over "disk".
    expect(expansionTerms('speech to text', t)).toEqual(['transcription', 'stt', 'whisper']);
    expect(expansionTerms('local disk', t)).toEqual(['filesystem']);
    expect(expansionTerms('a disk', t)).toEqual(['b', 'storage']);
    expect(expansionTerms('text then speech to text', t)).toEqual(['words', 'transcription', 'stt', 'whisper']);
  });

  it('matches a phrase of two or more words with one other word inside it', () => {
    expect(expansionTerms('local SSD disk', t)).toEqual(['filesystem', 'storage']);
    expect(expansionTerms('speech converted to text', t)).toEqual(['transcription', 'stt', 'whisper', 'words']);
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    expect(expansionTerms('let my agent execute Python code', v)).toContain('execution');
    expect(expansionTerms('convert a CSV file to JSON', v)).toContain('conversion');
  });

  it('matches no phrase with two words inside it, or with its first or last word elsewhere', () => {
    expect(expansionTerms('local fast SSD disk', t)).toEqual(['storage']);
    expect(expansionTerms('speech is turned to text', t)).toEqual(['words']);
    // A word in place of one of the phrase's is no match.
    expect(expansionTerms('speech as text', t)).toEqual(['words']);
    expect(expansionTerms('a disk, local', t)).toEqual(['b', 'storage']);
    // One word alone has nothing inside it.
    expect(expansionTerms('files', t)).toEqual(['filesystem']);
  });

  it('matches a phrase with `to` between two words also with `into` there, unless a line has that phrase', () => {
    expect(expansionTerms('turn speech into text', t)).toEqual(['transcription', 'stt', 'whisper']);
    expect(expansionTerms('turn my speech into text', t)).toEqual(['transcription', 'stt', 'whisper']);
    // `to` first or last in a phrase is no conversion: "log into" is not "log to".
    const own = compileThesaurus([
      'speech to text => stt',
      'speech into text => dictation',
      'log to => logs',
      'to do => tasks',
    ]);
    expect(expansionTerms('speech into text', own)).toEqual(['dictation']);
    expect(expansionTerms('log into my account', own)).toEqual([]);
    expect(expansionTerms('into do', own)).toEqual([]);
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    expect(expansionTerms('turn speech into text', v)).toContain('transcription');
    expect(expansionTerms('turn this text into speech', v)).toContain('tts');
  });

  it('prefers a whole phrase at a word to one with a word inside it, and leaves the words after it free', () => {
    // "hard drive" is whole at "hard"; "local disk" with "hard" inside would also start at "local".
    expect(expansionTerms('local hard drive', t)).toEqual(['filesystem']);
    // The words after a phrase with a word inside match on their own: "disk" after "local (SSD) disk".
    expect(expansionTerms('speech to plain text', t)).toEqual(['transcription', 'stt', 'whisper', 'words']);
    expect(expansionTerms('speech to text', t)).toEqual(['transcription', 'stt', 'whisper']);
  });

  it('never expands what it added (no loop), nor adds a word the request holds', () => {
    expect(expansionTerms('a', t)).toEqual(['b']);
    expect(expansionTerms('b', t)).toEqual(['a']);
    expect(expansionTerms('a b', t)).toEqual([]);
    expect(expansionTerms('stt: transcribe', t)).toEqual(['transcription', 'whisper']);
    // A term two phrases add is added once.
    expect(expansionTerms('local disk and hard drive', t)).toEqual(['filesystem']);
  });

  it('adds at most `max` terms, and looks only at the first MAX_EXPANDED_WORDS words', () => {
    expect(expansionTerms('transcribe a disk', t, 2)).toEqual(['transcription', 'stt']);
    expect(expansionTerms('transcribe', t, 0)).toEqual([]);
    const filler = Array.from({ length: MAX_EXPANDED_WORDS }, () => 'zzz').join(' ');
    expect(expansionTerms(`${filler} transcribe`, t)).toEqual([]);
    expect(expansionTerms(`${filler.slice(4)} transcribe`, t)).toEqual(['transcription', 'stt', 'whisper']);
    // The first phrase of every line: far more terms than the bound within the words looked at.
    const every = DEVELOPER_VOCABULARY.map((line) => line.split(/=>|\|/)[0]!).join(' ');
    expect(expansionTerms(every, compileThesaurus(DEVELOPER_VOCABULARY))).toHaveLength(MAX_EXPANSION_TERMS);
  });

  it('returns nothing for a request without thesaurus words, or without words', () => {
    expect(expansionTerms('weather in Lisbon', t)).toEqual([]);
    expect(expansionTerms('', t)).toEqual([]);
    expect(expansionTerms('!!! ???', t)).toEqual([]);
  });
});

describe('expandedSentence', () => {
  it('appends the added terms in brackets, and leaves a request without them as it is', () => {
    const terms = expansionTerms('speech to text', t);
    expect(expandedSentence('speech to text', terms)).toBe('speech to text (transcription, stt, whisper)');
    expect(expandedSentence('weather in Lisbon', [])).toBe('weather in Lisbon');
  });
});

describe('compileThesaurus', () => {
  it('refuses malformed lines, overlong phrases and a phrase on two lines', () => {
    for (const bad of ['disk', 'disk =>', '=> filesystem', 'disk| => x', 'a => b => c', '... => x'])
      expect(() => compileThesaurus([bad]), bad).toThrow(RangeError);
    const long = Array.from({ length: MAX_PHRASE_WORDS + 1 }, (_, i) => `w${i}`).join(' ');
    expect(() => compileThesaurus([`${long} => x`])).toThrow(RangeError);
    expect(compileThesaurus([`${long.split(' ').slice(1).join(' ')} => x`]).longest).toBe(MAX_PHRASE_WORDS);
    expect(() => compileThesaurus(['disk => a', 'Disks => b'])).toThrow(/two lines: disk/);
    // Forms of one phrase on one line are the same phrase.
    expect(compileThesaurus(['log|logs => observability']).phrases.size).toBe(1);
  });

  it('compiles the shipped developer vocabulary, which maps the requests issue 26 names to catalog words', () => {
    expect(DEVELOPER_VOCABULARY.length).toBeGreaterThanOrEqual(60);
    expect(DEVELOPER_VOCABULARY.length).toBeLessThanOrEqual(1000);
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['work with files on my local disk', 'filesystem'],
      ['query my Postgres database', 'postgresql'],
      ['search the web', 'serp'],
      ['generate images from text', 'diffusion'],
      ['get stock quotes', 'stocks'],
      ['speech to text for my recordings', 'transcription'],
      ['uptime checks for my site', 'monitoring'],
      ['latitude and longitude of an address', 'geocoding'],
      ['text my phone when the build fails', 'sms'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).toContain(term);
  });

  it('names the well-known products of a concept, whose records often say only their name', () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string[]]> = [
      ['store embeddings in a vector database', ['qdrant', 'pinecone', 'chroma', 'milvus']],
      ['send transactional emails', ['sendgrid', 'mailgun']],
      ['search the web for articles', ['brave', 'tavily']],
      ['automate a headless browser', ['playwright', 'puppeteer']],
      ['price of bitcoin', ['coingecko', 'coinmarketcap']],
    ];
    for (const [request, terms] of cases)
      expect(expansionTerms(request, v), request).toEqual(expect.arrayContaining(terms));
  });

  it("covers concepts of the catalog's frequent tags", () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['somewhere to stay in Rome', 'hotel'],
      ['cocktail ideas', 'drink'],
      ['mint an NFT', 'blockchain'],
      ['pictures of dogs', 'animals'],
      ['push events to a message queue', 'kafka'],
      ['photos of planets from NASA', 'astronomy'],
      ['track a parcel by its tracking number', 'shipping'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).toContain(term);
  });

  it('covers plain words for concepts whose records use other words', () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['convert 20 dollars to euros', 'currency'],
      ['draw a bar chart of monthly sales', 'charts'],
      ['which language is this text in', 'detection'],
      ['interactions of a medication', 'fda'],
      ['calories in an apple', 'nutrition'],
      ['restaurants near me', 'places'],
      ['trim a video clip to mp4', 'ffmpeg'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).toContain(term);
  });

  it('covers everyday requests by area in plain words', () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['turn my voice memo into text', 'transcription'],
      ['send money to a friend abroad', 'payments'],
      ['inflation figures for last year', 'economics'],
      ['blur faces in a photo', 'vision'],
      ['add two factor codes to my login', 'otp'],
      ['run the cells of my notebook', 'jupyter'],
      ['where is this plane now', 'aviation'],
      ['dim the light bulbs at home', 'automation'],
      ['back up my files every night', 'snapshot'],
      ['charge a credit card', 'stripe'],
      ['convert 30 celsius', 'utilorax'],
      ['read my Outlook inbox', 'graph'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).toContain(term);
  });

  it('covers each area of the catalog, public-apis sections and kinds of MCP server alike', () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['bills passed by parliament this year', 'legislative'],
      ['departures from the nearest bus stop', 'transit'],
      ['do I need a visa for Japan', 'passport'],
      ['swap tokens on a decentralized exchange', 'dex'],
      ['earnings and balance sheet of a company', 'filings'],
      ['live scores of the matches tonight', 'standings'],
      ['sunrise time in Oslo tomorrow', 'sun'],
      ['remove the background from a product photo', 'removal'],
      ['placeholder text for a mockup', 'lorem'],
      ['is this suspicious link safe to open', 'phishing'],
      ['list the pods in my cluster', 'kubectl'],
      ['query our BigQuery tables', 'warehouse'],
      ['read my unread emails', 'imap'],
      ['long term memory for my agent', 'mem0'],
      ['call a large language model', 'llm'],
      ['will it be windy tomorrow', 'weather'],
      ['remind me to renew the domain', 'reminders'],
      ['track my order from the shop', 'shipping'],
      ['validate json against a schema', 'processing'],
      ['which ports are open on my server', 'shodan'],
      ['kafka consumer lag', 'msk'],
      ['terraform state list', 'hashicorp'],
      ['generate a self-signed certificate', 'openssl'],
      ['check my site for security headers', 'mozilla'],
      ['read a config map', 'kubectl'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).toContain(term);
  });

  it('adds only words of the area asked for, none of another sense in the catalog', () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['push events to a message queue', 'messaging'],
      ['convert 30 celsius', 'units'],
      ['decode a jwt', 'token'],
      ['open a helpdesk ticket', 'support'],
      ['fix the spelling in my essay', 'spelling'],
      ['send money to a friend abroad', 'banking'],
      ['load data into a data warehouse', 'analytics'],
      ['ssh into my vps', 'server'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).not.toContain(term);
  });

  it('maps a word of two senses only in the phrase that fixes its sense', () => {
    const two = compileThesaurus(DEVELOPER_VOCABULARY);
    expect(expansionTerms('papers about protein folding', two)).not.toContain('nutrition');
    expect(expansionTerms('the plot of a novel', two)).not.toContain('charts');
    expect(expansionTerms('text me when an order ships', two)).not.toContain('marine');
    expect(expansionTerms('get a shipping quote', two)).not.toContain('quotes');
    expect(expansionTerms('add a sleep between retries', two)).not.toContain('fitness');
    expect(expansionTerms('coworking spaces in Lisbon', two)).not.toContain('astronomy');
    expect(expansionTerms('add a health check endpoint', two)).not.toContain('medical');
    expect(expansionTerms('publish to the event bus', two)).not.toContain('transit');
    expect(expansionTerms('crop yields by region', two)).not.toContain('image');
    expect(expansionTerms('stock levels in my warehouse', two)).not.toContain('warehouse');
    expect(expansionTerms('the box score of a baseball game', two)).toEqual(['sports']);
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    expect(expansionTerms('train a model on my data', v)).not.toContain('transit');
    expect(expansionTerms('let users log in with Google', v)).toContain('authentication');
    expect(expansionTerms('let users log in with Google', v)).not.toContain('logs');
    expect(expansionTerms('create a page in Notion with my meeting notes', v)).not.toContain('transcription');
    expect(expansionTerms('convert docx to markdown', v)).not.toContain('office');
    expect(expansionTerms('the F1 score of my classifier', v)).not.toContain('racing');
    expect(expansionTerms('sunset the old endpoint', v)).not.toContain('sun');
    expect(expansionTerms('install uv and pin the index', v)).not.toContain('index');
    expect(expansionTerms('a radio button in my form', v)).not.toContain('stations');
    expect(expansionTerms('paste the output into a file', v)).not.toContain('storage');
    expect(expansionTerms('cast a value to an integer', v)).not.toContain('movies');
    expect(expansionTerms('an Apify actor that scrapes', v)).not.toContain('movies');
    expect(expansionTerms('eval a JavaScript string', v)).not.toContain('observability');
    expect(expansionTerms('ads-b flight data', v)).not.toContain('advertising');
    expect(expansionTerms('cruise ports in the caribbean', v)).not.toContain('shodan');
    expect(expansionTerms('system load testing', v)).not.toContain('metrics');
    expect(expansionTerms('install a chart library for react', v)).not.toContain('kubectl');
    expect(expansionTerms('is it just me or is it cold', v)).not.toContain('outages');
    expect(expansionTerms('detect malicious prompts in user input', v)).not.toContain('malware');
    expect(expansionTerms('check the github status checks on my pr', v)).not.toContain('outages');
    // A two-word phrase also matches with one word inside it, so such phrases must keep their sense then too.
    expect(expansionTerms('order a book online', v)).not.toContain('trading');
    expect(expansionTerms('optimize my Docker image', v)).not.toContain('compression');
    expect(expansionTerms('the transaction history of a wallet', v)).not.toContain('plaid');
  });

  it('maps business requests by the phrase that fixes the sense of deal, ticket, order, lead and statement', () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    const cases: Array<[string, string]> = [
      ['move the deal to closed won', 'crm'],
      ['what deals are in my pipeline this quarter', 'crm'],
      ['hubspot: create a contact', 'crm'],
      ['open a Zendesk ticket for a customer', 'intercom'],
      ['fulfill order 1042 and notify the customer', 'ecommerce'],
      ['sort orders by date in the database', 'sql'],
      ['generate leads for my startup', 'enrichment'],
      ['number of employees of a company', 'b2b'],
      ['text a customer on their phone', 'sms'],
      ['my bank account statement as csv', 'plaid'],
      ["last quarter's revenue of Apple", 'financial'],
    ];
    for (const [request, term] of cases) expect(expansionTerms(request, v), request).toContain(term);
    const others: Array<[string, string]> = [
      ['the deal of the day on steam games', 'crm'],
      ['fix my CI pipeline', 'crm'],
      ['order of operations in math', 'ecommerce'],
      ['lead levels in drinking water', 'enrichment'],
      ['validate a bank account number', 'plaid'],
      ['check the signature of a signed git commit', 'pandadoc'],
    ];
    for (const [request, term] of others) expect(expansionTerms(request, v), request).not.toContain(term);
  });

  it("keeps everyday and the developer's own machine apart from the catalog's other senses of a word", () => {
    const v = compileThesaurus(DEVELOPER_VOCABULARY);
    // A port a local process listens on is no internet scan; a pharmacy nearby is a place, not drug data.
    expect(expansionTerms('kill the process listening on port 3000', v)).toContain('terminal');
    expect(expansionTerms('kill the process listening on port 3000', v)).not.toContain('shodan');
    expect(expansionTerms('nearest pharmacy that is open now', v)).not.toContain('openfda');
    // Metric units, CPU temperature, road traffic, test fixtures: not metrics, weather, web analytics, sports.
    expect(expansionTerms('metric to imperial converter', v)).not.toContain('prometheus');
    expect(expansionTerms('check cpu temperature', v)).not.toContain('weather');
    expect(expansionTerms('how long is the drive to boston with traffic', v)).not.toContain('analytics');
    expect(expansionTerms('pytest fixtures for a database', v)).toContain('fake');
    // And the other way round: the everyday phrases stay out of the developer's requests.
    expect(expansionTerms('configure a custom uv index url', v)).not.toContain('weather');
    expect(expansionTerms('nba player stats for lebron', v)).not.toContain('pandascore');
    expect(expansionTerms('what is taking up space in my postgres database', v)).not.toContain('filesystem');
    expect(expansionTerms('memory leak in my node process', v)).toContain('profiling');
  });
});
