import { describe, expect, it } from 'vitest';
import {
  keyedNames,
  MIN_NAME_WORD,
  nameLift,
  nameMatches,
  nameProbe,
  nameProbes,
  namedWords,
  properNames,
  soleNamed,
} from '../src/domain/name-match.js';

describe('namedWords', () => {
  it('keeps the words capitalised after the first, lower-cased', () => {
    expect(namedWords('Create and update pages in Notion')).toEqual(['notion']);
    expect(namedWords('an MCP server to query MySQL from GitHub Actions')).toEqual([
      'mcp',
      'mysql',
      'github',
      'actions',
    ]);
  });
  it('ignores the first word, capitalised by grammar, and requests in lower case', () => {
    expect(namedWords('Weather for a city')).toEqual([]);
    expect(namedWords('read keys in redis')).toEqual([]);
    expect(namedWords('')).toEqual([]);
  });
  it('leaves out place and language names, which say where and not which product', () => {
    expect(namedWords('translate a paragraph from English to Spanish')).toEqual([]);
    expect(namedWords('cheap flights from London to New York on Skyscanner')).toEqual(['skyscanner']);
    expect(namedWords('public holidays in Germany from the Nager API')).toEqual(['nager', 'api']);
  });
  it('splits on punctuation and normalises compatibility forms', () => {
    expect(namedWords('talk to Google-Calendar, please')).toEqual(['google', 'calendar']);
    expect(namedWords('use ＲＥＤＩＳ')).toEqual(['redis']);
  });
});

describe('properNames', () => {
  it('keeps the named words written with a lower-case letter too', () => {
    expect(properNames('list yesterday’s orders from my Shopify store')).toEqual(['shopify']);
    expect(properNames('manage users and roles in Auth0')).toEqual(['auth0']);
    expect(properNames('an MCP server to query MySQL from GitHub Actions')).toEqual(['mysql', 'github', 'actions']);
  });
  it('leaves out words in capitals only, most of them generic acronyms', () => {
    expect(properNames('check whether a URL is malicious')).toEqual([]);
    expect(properNames('return clean markdown for an LLM')).toEqual([]);
    expect(properNames('list the EC2 instances in my AWS account')).toEqual([]);
  });
  it('shares namedWords’ exclusions: the first word, places and languages', () => {
    expect(properNames('Shopify orders')).toEqual([]);
    expect(properNames('translate from English to Spanish on Lara')).toEqual(['lara']);
    expect(properNames('')).toEqual([]);
  });
});

describe('nameProbe', () => {
  it('drops words shorter than MIN_NAME_WORD and matches plurals by their singular', () => {
    expect(MIN_NAME_WORD).toBe(3);
    expect([...nameProbe(['my', 'in', 'git', 'sheets', 'status'])]).toEqual(['git', 'sheet', 'status']);
  });
});

describe('nameMatches', () => {
  const probe = nameProbe(['redis', 'notion']);
  it('matches a whole word of the name or of the id', () => {
    expect(nameMatches(probe, 'redis/mcp-redis', 'mcp-redis')).toBe(true);
    expect(nameMatches(probe, 'Notes', 'notion-mcp')).toBe(true);
  });
  it('does not match part of a word', () => {
    expect(nameMatches(probe, 'Redistribute', 'redistribute')).toBe(false);
  });
  it('matches a plural name against a singular probe', () => {
    expect(nameMatches(nameProbe(['sheet']), 'Google Sheets', 'google-sheets')).toBe(true);
  });
  it('matches nothing with an empty probe', () => {
    expect(nameMatches(new Set(), 'Redis', 'redis')).toBe(false);
  });
});

describe('soleNamed', () => {
  const skill = (name: string, id: string) => ({ name, id });
  it('names the one candidate whose name or id holds a proper name of the request', () => {
    const probes = nameProbes('list orders from my Shopify store', []);
    const found = soleNamed(probes, [
      skill('Flipkart Marketplace', 'flipkart'),
      skill('geli2001/shopify-mcp', 'shopify-mcp'),
    ]);
    expect([...found]).toEqual(['shopify-mcp']);
  });
  it('names none when two candidates hold the name', () => {
    const probes = nameProbes('the price of Ethereum in dollars', []);
    const found = soleNamed(probes, [
      skill('Infura Ethereum', 'infura-ethereum'),
      skill('Alchemy', 'alchemy-ethereum'),
    ]);
    expect(found.size).toBe(0);
  });
  it('counts each proper name on its own', () => {
    const probes = nameProbes('copy issues from Jira to Linear', []);
    const found = soleNamed(probes, [
      skill('Jira', 'jira'),
      skill('Linear', 'linear'),
      skill('Linear', 'linear-remote'),
      skill('Linear Sync', 'linear-sync'),
    ]);
    expect([...found]).toEqual(['jira', 'linear', 'linear-remote']);
  });
  it('names the records that are the product itself among others holding its name', () => {
    const probes = nameProbes('open a pull request on GitHub from branch fix-login', []);
    const found = soleNamed(probes, [
      skill('Auth0', 'auth0'),
      skill('GitHub Chat', 'github-chat'),
      skill('GitHub', 'github'),
      skill('GitHub MCP server', 'github-mcp'),
      skill('Things', 'things'),
    ]);
    expect([...found]).toEqual(['github', 'github-mcp']);
    expect([...soleNamed(nameProbes('add a to-do to Things', []), [skill('Things', 'things-mcp')])]).toEqual([
      'things-mcp',
    ]);
  });
  it('ignores acronyms, words in descriptions, and requests that name nothing', () => {
    const candidates = [skill('URL Shortener', 'drivet-url-shortener'), skill('Webclaw', 'webclaw')];
    expect(soleNamed(nameProbes('check whether a URL is malicious', []), candidates).size).toBe(0);
    expect(soleNamed(nameProbes('scrape pages with Firecrawl', []), candidates).size).toBe(0);
    expect(soleNamed(nameProbes('shorten a url', ['url']), candidates).size).toBe(0);
    expect(soleNamed(nameProbes('Webclaw', []), candidates).size).toBe(0);
  });
});

describe('nameLift', () => {
  const bonus = { sole: 0.2, named: 0.1, product: 0.05, described: 0.03 };
  const probes = nameProbes('Create pages in Notion', ['brave', 'tavily']);
  const skill = (name: string, id: string, description = '') => ({ name, id, description });
  it('gives the named bonus to a skill named by the request', () => {
    expect(nameLift(probes, skill('Notion', 'notion-remote'), bonus)).toBe(0.1);
  });
  it('gives the product bonus to a skill named by an added term', () => {
    expect(nameLift(probes, skill('Brave Search', 'brave'), bonus)).toBe(0.05);
  });
  it('gives the named bonus, not both, when a name holds both', () => {
    expect(nameLift(probes, skill('Notion via Tavily', 'x', 'Notion pages'), bonus)).toBe(0.1);
  });
  it('gives the described bonus to a skill whose description holds a word the request names', () => {
    expect(nameLift(probes, skill('sooperset/mcp-atlassian', 'mcp-atlassian', 'Confluence and Notion'), bonus)).toBe(
      0.03,
    );
    expect(nameLift(probes, skill('Brave', 'brave', 'Search Notion pages'), bonus)).toBe(0.05);
    // An added term counts only in a name: a description that mentions Brave is no Brave server.
    expect(nameLift(probes, skill('Search', 'search', 'results from Brave'), bonus)).toBe(0);
  });
  it('gives the sole bonus to a skill soleNamed found, before any other', () => {
    const sole = new Set(['notion-remote']);
    expect(nameLift(probes, skill('Notion', 'notion-remote'), bonus, sole)).toBe(0.2);
    expect(nameLift(probes, skill('Notion', 'notion-mcp'), bonus, sole)).toBe(0.1);
  });
  it('gives nothing to other skills', () => {
    expect(nameLift(probes, skill('Webflow', 'webflow-remote', 'Build websites'), bonus)).toBe(0);
  });
  it('gives nothing when the request names nothing and nothing was added', () => {
    expect(nameLift(nameProbes('create pages', []), skill('Create', 'pages', 'create pages'), bonus)).toBe(0);
  });
});

describe('keyedNames', () => {
  const skill = (id: string, name: string, description: string, tags: string[] = []) => ({
    id,
    name,
    description,
    tags,
  });
  const okta = skill('okta-mcp-server', 'Okta', 'Manage Okta users, groups and applications', ['identity']);
  const users = skill('randomuser', 'RandomUser', 'Generates random user data', ['users']);
  const stream = skill('stream', 'Stream', 'Czech internet television, films and series');
  const octagon = skill('octagon', 'Octagon', 'Market intelligence and SEC filings');
  const wholeWords = new Set(['stream', 'list', 'movie']);
  const ordinary = (w: string) => wholeWords.has(w);
  const guard = (stems: string[], added: string[] = []) => ({ stems, added, ordinary });

  it('reads a word in any case as a name when it is the whole product key of a candidate', () => {
    expect(keyedNames('list users in okta', [users, okta], guard(['list', 'user', 'okta']))).toEqual(['okta']);
    expect(keyedNames('Okta users', [users, okta], guard(['okta', 'user']))).toEqual(['okta']);
    expect(keyedNames('my okta-mcp users', [okta], guard(['okta', 'mcp', 'user']))).toEqual(['okta']);
  });
  it('reads no word the predicate calls ordinary, which a request uses as a word ("stream a movie")', () => {
    const film = skill('stream', 'Stream', 'Watch a movie online');
    expect(keyedNames('stream a movie tonight', [film], guard(['stream', 'movie', 'tonight']))).toEqual([]);
  });
  it('reads no word whose every holder is a namesake of the request (its record says none of the request words)', () => {
    expect(keyedNames('octagon area formula', [octagon], guard(['octagon', 'area', 'formula']))).toEqual([]);
    // The product's own name in its description counts: the record says what it is.
    const own = skill('octagon', 'Octagon', 'Octagon market data');
    expect(keyedNames('octagon area formula', [own], guard(['octagon', 'area', 'formula']))).toEqual(['octagon']);
    // So does a word the vocabulary added to the request.
    expect(keyedNames('octagon area formula', [octagon], guard(['octagon', 'area'], ['sec']))).toEqual(['octagon']);
  });
  it('reads no word that is only part of a product key, short, or a place name', () => {
    const chess = skill('chess-com', 'Chess.com', 'Chess games and players');
    expect(keyedNames('my chess games', [chess], guard(['chess', 'game']))).toEqual([]);
    const io = skill('io', 'IO', 'io data');
    expect(keyedNames('io data', [io], guard(['io', 'data']))).toEqual([]);
    const paris = skill('paris', 'Paris', 'Paris open data');
    expect(keyedNames('open data of paris', [paris], guard(['open', 'data', 'paris']))).toEqual([]);
    expect(keyedNames('films to stream', [stream], guard(['film', 'stream']))).toEqual([]);
  });
  it('counts as named and proper in nameProbes', () => {
    const probes = nameProbes('list users in okta', [], ['okta']);
    expect([...probes.named]).toEqual(['okta']);
    expect([...probes.proper]).toEqual(['okta']);
    expect([
      ...soleNamed(probes, [
        { name: 'Okta', id: 'okta-mcp-server' },
        { name: 'RandomUser', id: 'randomuser' },
      ]),
    ]).toEqual(['okta-mcp-server']);
  });
});
