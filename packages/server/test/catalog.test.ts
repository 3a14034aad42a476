import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CATEGORIES, MAX_EXAMPLE_CHARS, MAX_EXAMPLES } from '@axle/sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { readSources } from '../src/catalog/build.js';
import {
  buildCatalog,
  categoryCounts,
  distinctSeedRows,
  mcpConnection,
  serializeCatalog,
  withExamples,
} from '../src/catalog/compose.js';
import { BUNDLED_CATALOG, loadCatalog } from '../src/catalog/load.js';
import {
  categorizePublicApi,
  deriveTags,
  informativeDockerTags,
  MCP_DEFAULT_CATEGORY,
  type McpCategoryEvidence,
  placeMcpServer,
  PUBLIC_APIS_CATEGORY,
  pricingForWebApi,
  qualityForMcpServer,
  qualityForWebApi,
  slugify,
} from '../src/catalog/mapping.js';
import { parseDockerServer } from '../src/catalog/parse-docker-registry.js';
import { parseMcpRegistry } from '../src/catalog/parse-mcp-registry.js';
import { parsePublicApis } from '../src/catalog/parse-public-apis.js';

/** The category a server is filed under: where a rule places it, else the default. */
const categorizeMcpServer = (text: string, evidence?: McpCategoryEvidence) =>
  placeMcpServer(text, evidence) ?? MCP_DEFAULT_CATEGORY;

const PUBLIC_APIS_MD = `# Sponsor
## APILayer APIs
| API | Description | Call this API |
|:---|:---|:---|
| [IPstack](https://ipstack.com/) | Locate visitors by IP | [Run](https://example.com) |

## Index
* [Animals](#animals)

### Animals
API | Description | Auth | HTTPS | CORS
|:---|:---|:---|:---|:---|
| [Cat Facts](https://alexwohlbruck.github.io/cat-facts/) | Daily cat facts | No | Yes | No | |
| [Cat Facts](https://catfact.ninja/) | Random cat facts | No | Yes | Yes |
| [IUCN](http://apiv3.iucnredlist.org/api/v3/docs ) | IUCN Red List of Threatened Species | \`apiKey\` | No | No |

### Development
| API | Description | Auth | HTTPS | CORS |
|---|:---|:---|:---|:---|
| [ApiFlash](https://apiflash.com/) | Chrome based screenshot API for developers | \`apiKey\` | Yes | Unknown |
| [Beeceptor](https://beeceptor.com/) | Build a mock Rest API endpoint in seconds | No | Yes | Yes |

### Weather
| API | Description | Auth | HTTPS | CORS |
|---|:---|:---|:---|:---|
| [Améthyste Weather](https://example.org/w) | Weather with [payments](https://x.y) | \`OAuth\` | Yes | Yes |

## License
| [Not an API](https://example.com) | after the last section | No | Yes | Yes |
`;

const server = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: '',
  repository: { url: `https://github.com/${name.replace('io.github.', '')}` },
  ...extra,
});

const MCP_SEED = [
  server('io.github.acme/pay-mcp', {
    description: 'Accept payments with Acme',
    packages: [
      { registry_name: 'npm', name: '@acme/pay-mcp', version: '1.2.0', environment_variables: [{ name: 'ACME_KEY' }] },
    ],
  }),
  server('io.github.py/notes', {
    description: 'Keep notes in a local SQLite database',
    packages: [{ registry_name: 'pypi', name: 'notes-mcp', version: '0.1.0' }],
  }),
  server('io.github.box/dart-mcp', {
    description: 'Dart task tracker',
    packages: [
      {
        registry_name: 'docker',
        name: 'mcp/dart',
        version: '',
        environment_variables: [{ name: 'DART_TOKEN' }, { name: 'DART_HOST' }],
      },
    ],
  }),
  server('io.github.one/mcp', {
    description: 'Something unusual',
    packages: [{ registry_name: 'unknown', name: 'x' }],
  }),
  server('io.github.two/mcp', {
    packages: [{ registry_name: 'unknown', name: 'y', version: '' }],
    remotes: [{ transport_type: 'sse', url: 'http://localhost:8000/sse' }],
  }),
  server('io.github.hosted/remote', { remotes: [{ transport_type: 'sse', url: 'https://mcp.example.com/sse' }] }),
  { name: '', description: '', repository: { url: '' } },
];

const sources = { publicApisMarkdown: PUBLIC_APIS_MD, mcpSeed: MCP_SEED };

describe('public-apis parser', () => {
  const rows = parsePublicApis(PUBLIC_APIS_MD);

  it('reads the category tables only, skipping the sponsor table and text after the last section', () => {
    expect(rows.map((r) => r.name)).toEqual([
      'Cat Facts',
      'Cat Facts',
      'IUCN',
      'ApiFlash',
      'Beeceptor',
      'Améthyste Weather',
    ]);
  });

  it('normalises cells: backticks, "No" auth, padded links, inline links, extra columns', () => {
    expect(rows[2]).toMatchObject({
      section: 'Animals',
      link: 'http://apiv3.iucnredlist.org/api/v3/docs',
      auth: 'apiKey',
      https: false,
      cors: 'no',
    });
    expect(rows[0]).toMatchObject({ auth: 'none', https: true, cors: 'no' });
    expect(rows[5]!.description).toBe('Weather with payments');
  });

  it('rejects a value it does not understand, naming the line', () => {
    const bad = '## Index\n### Animals\n| [A](https://a.b) | d | No | Maybe | Yes |\n';
    expect(() => parsePublicApis(bad)).toThrow('public-apis line 3: HTTPS "Maybe"');
  });
});

describe('category mapping', () => {
  it('maps every public-apis section onto the spec taxonomy', () => {
    for (const category of Object.values(PUBLIC_APIS_CATEGORY)) expect(CATEGORIES).toContain(category);
  });

  it('uses the section for precise sections, whatever the text says', () => {
    expect(categorizePublicApi('Weather', 'Weather with payments')).toBe('data-processing');
    expect(categorizePublicApi('Security', 'Security with payments')).toBe('monitoring');
    expect(categorizePublicApi('Email', 'Email validation database')).toBe('communication');
  });

  it('lets the text decide in coarse sections, falling back to the section', () => {
    expect(categorizePublicApi('Development', 'Chrome based screenshot API')).toBe('web-interaction');
    expect(categorizePublicApi('Development', 'Online Compiler for Various Languages')).toBe('code-execution');
    expect(categorizePublicApi('Business', 'Send marketing campaigns and transactional mails via email')).toBe(
      'communication',
    );
    expect(categorizePublicApi('Business', 'Trademark Search')).toBe('web-interaction');
    expect(categorizePublicApi('Development', 'Find random activities to fight boredom')).toBe('code-execution');
  });

  it('refuses a section it has no rule for', () => {
    expect(() => categorizePublicApi('Astrology', 'x')).toThrow('unmapped section "Astrology"');
  });

  it('classifies MCP servers by keywords; one nothing places is data-processing, not code-execution', () => {
    expect(categorizeMcpServer('postgres MCP server for read-only SQL')).toBe('storage-state');
    expect(categorizeMcpServer('Browse the web from your editor')).toBe('web-interaction');
    expect(categorizeMcpServer('Send Slack messages')).toBe('communication');
    expect(categorizeMcpServer('Grafana dashboards and alerts')).toBe('monitoring');
    expect(categorizeMcpServer('Swap tokens on Solana')).toBe('payment-financial');
    // Music production is content made, like audio; a bare sports name is data looked up (the default).
    expect(categorizeMcpServer('Ableton Live OSC control')).toBe('content-generation');
    expect(categorizeMcpServer('nba mcp server')).toBe('data-processing');
    // Developer tools named by what they are still are code execution.
    expect(categorizeMcpServer('A model context protocol server to work with JetBrains IDEs')).toBe('code-execution');
    expect(categorizeMcpServer('mcp nomad A nomad MCP Server')).toBe('code-execution');
  });

  it("trusts Docker's category when it names one field, over incidental words", () => {
    const cockroach = 'CockroachDB Enable AI agents to manage, monitor, and query CockroachDB';
    expect(categorizeMcpServer(cockroach, { category: 'database' })).toBe('storage-state');
    // Near miss: without Docker's word, "monitor" decides.
    expect(categorizeMcpServer(cockroach)).toBe('monitoring');
    expect(
      categorizeMcpServer('AWS Cost Explorer Detailed cost analysis and reporting. aws', {
        category: 'cost-management',
      }),
    ).toBe('monitoring');
    expect(
      categorizeMcpServer('Morningstar trusted content for your AI apps, a library of research', {
        category: 'fintech',
      }),
    ).toBe('payment-financial');
    // A broad Docker category (productivity spans several of ours) does not outrank the text.
    expect(categorizeMcpServer('Miro Create diagrams and explore board content', { category: 'productivity' })).toBe(
      'content-generation',
    );
    expect(categorizeMcpServer('Teamwork Tools for Teamwork.com products.', { category: 'productivity' })).toBe(
      'storage-state',
    );
  });

  it("keeps weather under data-processing even when Docker's category says monitoring", () => {
    expect(categorizeMcpServer('Weather Current conditions and alerts weather', { category: 'monitoring' })).toBe(
      'data-processing',
    );
    expect(
      categorizeMcpServer('Sentry Track application errors, monitor performance', { category: 'monitoring' }),
    ).toBe('monitoring');
    expect(categorizeMcpServer('Google Flights search for one-way and round-trip flights')).toBe('data-processing');
    expect(categorizeMcpServer('Linear Track issues, plan sprints issue-tracking')).toBe('storage-state');
    expect(categorizeMcpServer('Sentry error-tracking and performance')).toBe('monitoring');
    expect(categorizeMcpServer('Maestro Bitcoin blockchain data', { category: 'monitoring' })).toBe(
      'payment-financial',
    );
    expect(categorizeMcpServer('Amazon Location Service Place search, geocoding, and route optimization. aws')).toBe(
      'data-processing',
    );
  });

  it('reads loose words (search, AWS, code, URL) only when no precise word matches', () => {
    const dynamo = 'Amazon DynamoDB Complete DynamoDB operations and table management. aws';
    expect(categorizeMcpServer(dynamo)).toBe('code-execution');
    expect(categorizeMcpServer(dynamo, { category: 'database' })).toBe('storage-state');
    expect(categorizeMcpServer('Amazon Redshift Data warehouse operations and queries. aws')).toBe('data-processing');
    expect(categorizePublicApi('Documents & Productivity', 'HTML and URL to PDF API')).toBe('data-processing');
    expect(categorizeMcpServer('Search the web with Brave Search engine')).toBe('web-interaction');
    expect(categorizeMcpServer('Search and send Gmail messages')).toBe('communication');
    expect(categorizeMcpServer('Read Java library code')).toBe('code-execution');
  });

  it("reads the tools' names and descriptions only when the name and description say nothing", () => {
    const tools = (...names: string[]) => names.map((name) => ({ name, description: '' }));
    expect(categorizeMcpServer('Acme', { tools: tools('send_email', 'list_inbox') })).toBe('communication');
    expect(categorizeMcpServer('Acme payments', { tools: tools('send_email') })).toBe('payment-financial');
    expect(categorizeMcpServer('Acme', { category: 'productivity', tools: tools('execute_sql') })).toBe(
      'storage-state',
    );
    expect(categorizeMcpServer('Acme', { category: 'productivity', tools: tools('hello') })).toBe('storage-state');
    // A tool's description speaks when its name does not (`get` says nothing; "list products in the store" does).
    const get = [{ name: 'get', description: 'List products in the Shopify store' }];
    expect(categorizeMcpServer('Acme', { tools: get })).toBe('payment-financial');
    expect(placeMcpServer('Acme', { tools: tools('get') })).toBeUndefined();
  });

  it("drops Docker's tags that every kind of server carries", () => {
    expect(informativeDockerTags(['devops', 'AI', 'scraping', 'youtube', 'productivity'])).toEqual([
      'scraping',
      'youtube',
    ]);
  });

  it('files Security entries by what they are: threat feeds stay monitoring, the rest goes where it belongs', () => {
    expect(categorizePublicApi('Security', 'Best open-source password manager')).toBe('storage-state');
    expect(categorizePublicApi('Security', 'Ephemeral zero-knowledge encrypted data sharing')).toBe('storage-state');
    expect(categorizePublicApi('Security', 'Managed User Authentication Service')).toBe('code-execution');
    expect(categorizePublicApi('Security', 'Generate certificate signing requests and private keys')).toBe(
      'code-execution',
    );
    expect(categorizePublicApi('Security', 'Generate random passwords of varying complexities')).toBe(
      'content-generation',
    );
    expect(categorizePublicApi('Security', 'Hash decryption MD5, SHA1, SHA256')).toBe('data-processing');
    expect(categorizePublicApi('Security', 'A REST API to access high level cryptographic functions')).toBe(
      'data-processing',
    );
    expect(categorizePublicApi('Security', 'UK Police data')).toBe('data-processing');
    expect(categorizePublicApi('Security', 'One-time use credit card numbers')).toBe('payment-financial');
    // Near misses: feeds about passwords, malware and phishing are still watched state.
    expect(categorizePublicApi('Security', 'Passwords which have previously been exposed in data breaches')).toBe(
      'monitoring',
    );
    expect(categorizePublicApi('Security', 'Check links to see if they are known phishing attempts')).toBe(
      'monitoring',
    );
    expect(categorizePublicApi('Security', 'Search engine for Internet connected devices')).toBe('monitoring');
    // The section's rules are its own: another precise section ignores them.
    expect(categorizePublicApi('Animals', 'Generate random passwords')).toBe('content-generation');
    expect(categorizePublicApi('Tracking', 'Password manager for parcels')).toBe('monitoring');
  });

  it('reads "cryptographic" as data work, not cryptocurrency, and bare "security" only as a loose word', () => {
    expect(categorizeMcpServer('Sign with cryptographic keys')).toBe('data-processing');
    expect(categorizeMcpServer('Crypto prices and wallets')).toBe('payment-financial');
    expect(categorizeMcpServer('Secure code sandbox for executing code in containers')).toBe('code-execution');
    expect(categorizeMcpServer('Manage MCP servers with enhanced security')).toBe('code-execution');
    expect(categorizeMcpServer('Run automated security tests and track vulnerabilities')).toBe('monitoring');
    expect(categorizeMcpServer('Acme security')).toBe('monitoring');
  });

  it('places servers by subjects the older rules missed: queues, identity, models, music, MCP tooling', () => {
    expect(categorizeMcpServer('MCP server for interacting with RabbitMQ')).toBe('storage-state');
    expect(categorizeMcpServer('Managed Kafka cluster operations. aws')).toBe('storage-state');
    // Near miss: messages people send stay communication.
    expect(categorizeMcpServer('Send messages to a Slack channel')).toBe('communication');
    expect(categorizeMcpServer('Okta MCP Server')).toBe('code-execution');
    expect(categorizeMcpServer('Keycloak user management')).toBe('code-execution');
    expect(categorizeMcpServer("DeepSeek's advanced language models")).toBe('content-generation');
    expect(categorizeMcpServer('An MCP Server for interacting with Reaper projects')).toBe('content-generation');
    expect(categorizeMcpServer('Wanaku MCP Router')).toBe('code-execution');
    expect(categorizeMcpServer('An MCP proxy server that aggregates servers behind one HTTP server')).toBe(
      'code-execution',
    );
    // Near miss: a server usable from MCP clients is not tooling for them.
    expect(categorizeMcpServer('Shopify API, usable on mcp clients such as Claude')).toBe('payment-financial');
    expect(categorizeMcpServer('Manage Zscaler policies, audit security configurations, investigate incidents')).toBe(
      'monitoring',
    );
    expect(categorizeMcpServer('Morningstar investment research')).toBe('payment-financial');
    expect(categorizeMcpServer('List products and orders of a Shopify store')).toBe('payment-financial');
    // Near misses: "investigate" is not investing; "sheets" of paper aside, spreadsheets are data.
    expect(categorizeMcpServer('Investigate slow pages')).toBe('data-processing');
    expect(categorizeMcpServer('google sheets')).toBe('data-processing');
  });

  it('files environment data (air quality, carbon figures) under data-processing, like weather', () => {
    expect(categorizePublicApi('Environment', 'Open air quality data')).toBe('data-processing');
    expect(categorizePublicApi('Security', 'Passwords exposed in data breaches')).toBe('monitoring');
  });
});

describe('tags, pricing and quality rules', () => {
  it('derives a handful of lower-case, deduplicated tags: source first, then topics', () => {
    expect(deriveTags(['Science', 'Math'], 'Random images of space and weather forecasts')).toEqual([
      'science',
      'math',
      'images',
      'weather',
      'random',
    ]);
    const many = deriveTags(['mcp'], 'AI images video audio text search weather maps email');
    expect(many).toHaveLength(6);
    expect(new Set(many).size).toBe(many.length);
  });

  it('slugifies with accents folded and punctuation collapsed', () => {
    expect(slugify('Améthyste & Co.  API')).toBe('amethyste-co-api');
  });

  it('prices keyless APIs as free and keyed ones as freemium with unknown cost', () => {
    expect(pricingForWebApi('none')).toMatchObject({ model: 'free', cost_usd: '0' });
    expect(pricingForWebApi('OAuth')).toMatchObject({ model: 'freemium', cost_usd: 'unknown' });
    expect(pricingForWebApi('OAuth').note).toContain('OAuth');
  });

  it('scores reliability from observable signals and never claims verification', () => {
    expect(qualityForWebApi(true, 'yes')).toEqual({ reliability: 0.9, verified: false });
    expect(qualityForWebApi(true, 'unknown')).toEqual({ reliability: 0.7, verified: false });
    expect(qualityForWebApi(false, 'no')).toEqual({ reliability: 0.6, verified: false });
    expect(qualityForMcpServer({ launchable: false, versioned: false, described: false, hasRepository: true })).toEqual(
      { reliability: 0.5, verified: false },
    );
  });
});

describe('MCP registry parser and connections', () => {
  const { servers, skipped } = parseMcpRegistry(MCP_SEED);
  const byName = (n: string) => servers.find((s) => s.registryName === n)!;

  it('skips placeholder records and drops localhost remotes', () => {
    expect(skipped).toBe(1);
    expect(servers).toHaveLength(6);
    expect(byName('io.github.two/mcp').remotes).toEqual([]);
  });

  it('starts npm packages with npx, PyPI with uvx, Docker images with their env passed in', () => {
    expect(mcpConnection(byName('io.github.acme/pay-mcp'))).toEqual({
      protocol: 'stdio',
      endpoint: 'npx -y @acme/pay-mcp',
      command: 'npx -y @acme/pay-mcp',
      auth: 'ACME_KEY',
      env: ['ACME_KEY'],
      docs: 'https://github.com/acme/pay-mcp',
    });
    expect(mcpConnection(byName('io.github.py/notes')).command).toBe('uvx notes-mcp');
    expect(mcpConnection(byName('io.github.box/dart-mcp'))).toMatchObject({
      command: 'docker run -i --rm -e DART_TOKEN -e DART_HOST mcp/dart',
      auth: 'DART_TOKEN, DART_HOST',
    });
  });

  it('uses a hosted remote, or the repository when there is no way to launch it', () => {
    expect(mcpConnection(byName('io.github.hosted/remote'))).toMatchObject({
      protocol: 'sse',
      endpoint: 'https://mcp.example.com/sse',
      auth: 'none',
    });
    const repoOnly = mcpConnection(byName('io.github.one/mcp'));
    expect(repoOnly).toMatchObject({ protocol: 'stdio', endpoint: 'https://github.com/one/mcp' });
    expect(repoOnly.command).toBeUndefined();
  });

  it('lists a server once when the seed repeats it under a moved repository, keeping its home row', () => {
    const row = (owner: string, repo: string, repositoryUrl: string, description: string) => ({
      registryName: `io.github.${owner}/${repo}`,
      owner,
      repo,
      description,
      repositoryUrl,
      remotes: [],
    });
    const moved = row('vrk', 'mcp-server-crawl', 'https://github.com/Acme/crawl-mcp', 'Official Crawl MCP server');
    const home = row('acme', 'crawl-mcp', 'https://github.com/acme/crawl-mcp.git', 'Official Crawl MCP server');
    const sibling = row('acme', 'crawl-mcp-admin', 'https://github.com/acme/crawl-mcp', 'Crawl admin tools');
    const bare = [row('a', 'x', 'https://github.com/a/mono', ''), row('b', 'y', 'https://github.com/a/mono', '')];
    expect(distinctSeedRows([moved, sibling, home, ...bare])).toEqual([sibling, home, ...bare]);
    expect(distinctSeedRows([home, moved])).toEqual([home]);
  });

  it('names the failing field of a malformed seed', () => {
    expect(() => parseMcpRegistry([{ name: 'x', description: 3 }])).toThrow('MCP registry seed: 0.description');
  });
});

describe('buildCatalog on fixtures', () => {
  const skills = buildCatalog(sources);
  const byId = (id: string) => skills.find((s) => s.id === id);

  it('maps a web API row to a complete skill', () => {
    expect(byId('iucn')).toEqual({
      id: 'iucn',
      name: 'IUCN',
      description: 'IUCN Red List of Threatened Species',
      category: 'content-generation',
      tags: ['animals'],
      type: 'api',
      connection: {
        protocol: 'http',
        endpoint: 'http://apiv3.iucnredlist.org/api/v3/docs',
        auth: 'apiKey',
        docs: 'http://apiv3.iucnredlist.org/api/v3/docs',
      },
      pricing: pricingForWebApi('apiKey'),
      quality: { reliability: 0.6, verified: false },
    });
  });

  it('maps an MCP server to a complete skill', () => {
    expect(byId('pay-mcp')).toMatchObject({
      name: 'acme/pay-mcp',
      description: 'Accept payments with Acme',
      category: 'payment-financial',
      tags: ['mcp', 'npm', 'payments'],
      type: 'mcp_server',
      pricing: { model: 'free', cost_usd: '0' },
      quality: { reliability: 0.9, verified: false },
    });
    expect(byId('pay-mcp')!.pricing.note).toContain('ACME_KEY');
    // No description in the seed: one is built from the repository's name (nothing places it, so no category gloss).
    expect(byId('remote')!.description).toBe('remote MCP server.');
  });

  it('disambiguates shared and generic slugs without favouring list order', () => {
    expect(byId('cat-facts')).toBeUndefined();
    expect(byId('cat-facts-catfact-ninja')?.description).toBe('Random cat facts');
    expect(byId('cat-facts-alexwohlbruck-github-io')?.description).toBe('Daily cat facts');
    expect(byId('one-mcp')).toBeDefined();
    expect(byId('two-mcp')).toBeDefined();
    expect(byId('amethyste-weather')).toBeDefined();
  });

  it('is sorted by id and reproducible', () => {
    const ids = skills.map((s) => s.id);
    expect(ids).toEqual([...ids].sort());
    expect(serializeCatalog(buildCatalog(sources))).toBe(serializeCatalog(skills));
  });
});

const DOCKER_COMMIT = '818bf169b365e7b7d5b117352e32757c54844718';
const dockerServers = [
  parseDockerServer(
    'dart',
    {
      name: 'dart',
      image: 'mcp/dart',
      type: 'server',
      meta: { category: 'productivity', tags: ['dart', 'productivity'] },
      about: { title: 'Dart AI', description: 'Dart is project management powered by AI: tasks, docs and projects' },
      source: { project: 'https://github.com/Box/dart-mcp.git' },
      config: {
        description: 'Configure the connection to TODO',
        secrets: [{ name: 'dart.token', env: 'DART_TOKEN', example: '<TOKEN>', description: 'API token' }],
        env: [{ name: 'DART_HOST', example: 'https://app.dartai.com', value: '{{dart.host}}' }],
        parameters: { properties: { host: { type: 'string', description: 'Dart host URL' } } },
      },
    },
    [
      { name: 'create_task', description: 'Create a new task in Dart' },
      { name: 'create_task', description: 'duplicate' },
      { name: 'list_docs', description: 'x'.repeat(400) },
    ],
  ),
  parseDockerServer(
    'filesystem',
    {
      name: 'filesystem',
      image: 'mcp/filesystem',
      type: 'server',
      about: {
        title: 'Filesystem (Reference)',
        description: 'Local filesystem access with configurable allowed paths',
      },
      source: { project: 'https://github.com/modelcontextprotocol/servers' },
      run: {
        command: ['{{filesystem.paths|volume-target|into}}'],
        volumes: ['{{filesystem.paths|volume|into}}'],
        disableNetwork: true,
      },
      config: {
        description: 'The MCP server is allowed to access these paths',
        parameters: { type: 'object', properties: { paths: { type: 'array', default: ['/Users/local-test'] } } },
      },
    },
    undefined,
  ),
  parseDockerServer(
    'git',
    {
      name: 'git',
      image: 'mcp/git',
      type: 'server',
      about: { title: 'Git (Reference)', description: 'Git repository interaction and automation.' },
      source: { project: 'https://github.com/modelcontextprotocol/servers' },
    },
    undefined,
  ),
  parseDockerServer(
    'weather',
    {
      name: 'weather',
      type: 'remote',
      meta: { category: 'monitoring', tags: ['weather', 'remote'] },
      about: { title: 'Weather', description: 'Forecasts and current conditions for any city' },
      remote: { transport_type: 'streamable-http', url: 'https://mcp.weather.example/mcp' },
      oauth: [{ provider: 'weather', secret: 'weather.token', env: 'WEATHER_TOKEN' }],
    },
    undefined,
  ),
];

describe("Docker's MCP catalog", () => {
  const [dart] = dockerServers;

  it('reads configuration with secrets marked, parameter descriptions for variables, and deduplicated, cut tools', () => {
    expect(dart!.install).toEqual({
      env: [
        { name: 'DART_TOKEN', secret: true, description: 'API token', example: '<TOKEN>' },
        { name: 'DART_HOST', secret: false, description: 'Dart host URL', example: 'https://app.dartai.com' },
      ],
    });
    expect(dart!.tools.map((t) => t.name)).toEqual(['create_task', 'list_docs']);
    expect(dart!.tools[1]!.description.length).toBeLessThanOrEqual(300);
    expect(dockerServers[3]!.install.env).toEqual([
      { name: 'WEATHER_TOKEN', secret: true, description: 'OAuth token from weather' },
    ]);
    expect(() => parseDockerServer('bad', { name: 'bad' }, undefined)).toThrow('servers/bad/server.yaml');
    expect(() => parseDockerServer('bad', { name: 'bad', type: 'server', about: {} }, { tools: 1 })).toThrow(
      'servers/bad/tools.json',
    );
  });

  const skills = buildCatalog({ ...sources, docker: { commit: DOCKER_COMMIT, servers: dockerServers } });
  const byId = (id: string) => skills.find((s) => s.id === id);

  it('merges a server both sources list into one skill: the seed id and launch command, Docker tools and configuration', () => {
    expect(skills.filter((s) => s.connection.docs.toLowerCase().includes('box/dart-mcp'))).toHaveLength(1);
    expect(byId('dart-mcp')).toMatchObject({
      name: 'Dart AI',
      description: 'Dart is project management powered by AI: tasks, docs and projects',
      tools: [{ name: 'create_task' }, { name: 'list_docs' }],
      install: {
        env: [
          { name: 'DART_TOKEN', secret: true },
          { name: 'DART_HOST', secret: false },
        ],
      },
      connection: { command: 'docker run -i --rm -e DART_TOKEN -e DART_HOST mcp/dart' },
    });
    expect(byId('dart')).toBeUndefined();
  });

  it('adds the others as new skills without renaming existing ids; monorepo servers stay apart', () => {
    expect(byId('filesystem')).toMatchObject({
      name: 'Filesystem (Reference)',
      category: 'storage-state',
      // Docker's gateway mounts the paths and names them to the server; a person running the image does the same.
      connection: {
        command:
          'docker run -i --rm -v "${FILESYSTEM_PATHS}:${FILESYSTEM_PATHS}" --network none mcp/filesystem "${FILESYSTEM_PATHS}"',
      },
      install: {
        env: [],
        note:
          'The MCP server is allowed to access these paths. Before running, set the shell variable FILESYSTEM_PATHS ' +
          '(paths: e.g. /Users/local-test).',
      },
    });
    expect(byId('git')).toMatchObject({ category: 'storage-state' });
    expect(byId('weather')).toMatchObject({
      category: 'data-processing',
      connection: { protocol: 'streamable-http', endpoint: 'https://mcp.weather.example/mcp' },
      pricing: { model: 'unknown' },
    });
    // Every id stays; only the merged server's name changes (to Docker's title).
    const without = buildCatalog(sources);
    for (const s of without) expect(byId(s.id)?.name).toBe(s.id === 'dart-mcp' ? 'Dart AI' : s.name);
  });

  it('files weather under data-processing, GitHub under storage-state and CI under code-execution', () => {
    expect(categorizeMcpServer('weather alerts and forecasts')).toBe('data-processing');
    expect(categorizeMcpServer('manage GitHub issues and pull requests')).toBe('storage-state');
    expect(categorizeMcpServer('inspect GitHub Actions runs')).toBe('code-execution');
    expect(categorizePublicApi('Development', 'Make use of GitHub repositories, code and user info')).toBe(
      'storage-state',
    );
  });
});

describe("examples (the project's own requests a skill answers)", () => {
  const skills = buildCatalog(sources);

  it('joins each skill by id, trimmed and without repeats; a skill without any keeps no field', () => {
    const out = withExamples(skills, { iucn: [' which animals are endangered ', 'which animals are endangered', ''] });
    expect(out.find((s) => s.id === 'iucn')!.examples).toEqual(['which animals are endangered']);
    expect(out.find((s) => s.id === 'pay-mcp')).not.toHaveProperty('examples');
    expect(
      serializeCatalog(buildCatalog({ ...sources, examples: { iucn: ['red list status of a species'] } })),
    ).toContain('red list status of a species');
  });

  it('refuses examples for an id the catalog lacks, naming it', () => {
    expect(() => withExamples(skills, { 'no-such-skill': ['anything'] })).toThrow(/no-such-skill/);
  });
});

describe('the committed catalog', () => {
  const committed = loadCatalog();

  it("holds Docker's servers, with tools and install variables, and a PostgreSQL server", () => {
    expect(committed.filter((s) => s.tags.includes('docker')).length).toBeGreaterThan(300);
    expect(committed.filter((s) => (s.tools ?? []).length > 0).length).toBeGreaterThanOrEqual(28);
    expect(committed.find((s) => s.id === 'database-server')?.description).toContain('PostgreSQL');
    expect(committed.find((s) => s.id === 'brave')?.install?.env).toContainEqual(
      expect.objectContaining({ name: 'BRAVE_API_KEY', secret: true }),
    );
  });

  it("launches Docker's images with the mounts and arguments Docker's gateway would add, and no template left", () => {
    expect(committed.find((s) => s.id === 'filesystem')?.connection.command).toBe(
      'docker run -i --rm -v "${FILESYSTEM_PATHS}:${FILESYSTEM_PATHS}" --network none mcp/filesystem "${FILESYSTEM_PATHS}"',
    );
    expect(committed.find((s) => s.id === 'filesystem')?.install?.note).toContain(
      'set the shell variable FILESYSTEM_PATHS',
    );
    expect(committed.find((s) => s.id === 'sqlite')?.connection.command).toBe(
      'docker run -i --rm -v mcp-sqlite:/mcp mcp/sqlite --db-path /mcp/db.sqlite',
    );
    for (const s of committed) expect(s.connection.command ?? '', s.id).not.toContain('{{');
  });

  it('gives every skill examples: plain requests it answers, lower case', () => {
    for (const s of committed) {
      expect(s.examples?.length ?? 0, s.id).toBeGreaterThanOrEqual(2);
      for (const e of s.examples!) expect(e, s.id).toBe(e.toLowerCase().trim());
    }
  });

  it('holds both sources, with unique ids', () => {
    expect(committed.length).toBeGreaterThan(2000);
    expect(new Set(committed.map((s) => s.id)).size).toBe(committed.length);
    expect(new Set(committed.map((s) => s.type))).toEqual(new Set(['api', 'mcp_server']));
  });

  it('puts no more than 40% of the skills in any category, and uses every category', () => {
    const counts = categoryCounts(committed);
    for (const category of CATEGORIES) {
      expect(counts[category], category).toBeGreaterThan(0);
      expect(counts[category] / committed.length, category).toBeLessThanOrEqual(0.4);
    }
  });

  it('keeps tags lower-case and few', () => {
    for (const s of committed) {
      expect(s.tags.length).toBeLessThanOrEqual(6);
      for (const t of s.tags) expect(t).toMatch(/^[a-z0-9-]+$/);
    }
  });

  const data = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
  it.skipIf(!existsSync(data))('is exactly what the importer builds from the sources', () => {
    const fromSources = () => buildCatalog(readSources(data));
    const text = serializeCatalog(fromSources());
    expect(serializeCatalog(fromSources())).toBe(text);
    expect(readFileSync(BUNDLED_CATALOG, 'utf8')).toBe(text);
  });
});

describe('loadCatalog errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'axle-catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const good = buildCatalog(sources);
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('loads a valid operator file', () => {
    const path = file('ok.json', serializeCatalog(good));
    expect(loadCatalog(path)).toEqual(good);
  });

  it('names the entry, its id and the field', () => {
    const bad = structuredClone(good);
    (bad[3] as { category: string }).category = 'astrology';
    const path = file('bad.json', JSON.stringify(bad));
    expect(() => loadCatalog(path)).toThrow(
      new RegExp(`^AXLE_CATALOG ${path}: entry 3 \\(id "${bad[3]!.id}"\\): category: Invalid option`),
    );
  });

  it('names nested fields', () => {
    const bad = structuredClone(good) as unknown as { connection: Record<string, unknown> }[];
    delete bad[1]!.connection.endpoint;
    const path = file('nested.json', JSON.stringify(bad));
    expect(() => loadCatalog(path)).toThrow(/: entry 1 \(id "[a-z0-9-]+"\): connection\.endpoint: /);
  });

  it('bounds examples: how many a skill has and how long each is', () => {
    const withMany = structuredClone(good);
    withMany[1] = { ...withMany[1]!, examples: Array.from({ length: MAX_EXAMPLES + 1 }, (_, i) => `request ${i}`) };
    expect(() => loadCatalog(file('many.json', JSON.stringify(withMany)))).toThrow(/entry 1 .*: examples: /);
    const withLong = structuredClone(good);
    withLong[1] = { ...withLong[1]!, examples: ['x'.repeat(MAX_EXAMPLE_CHARS + 1)] };
    expect(() => loadCatalog(file('long.json', JSON.stringify(withLong)))).toThrow(/entry 1 .*: examples\.0: /);
    withLong[1]!.examples = ['x'.repeat(MAX_EXAMPLE_CHARS)];
    expect(loadCatalog(file('fits.json', JSON.stringify(withLong)))[1]!.examples).toHaveLength(1);
  });

  it('rejects duplicate ids', () => {
    const path = file('dup.json', JSON.stringify([good[0], good[1], good[0]]));
    expect(() => loadCatalog(path)).toThrow(`entry 2: id "${good[0]!.id}" duplicates entry 0`);
  });

  it('rejects a non-array, invalid JSON and a missing file', () => {
    expect(() => loadCatalog(file('obj.json', '{"skills": []}'))).toThrow('expected a JSON array of skills');
    expect(() => loadCatalog(file('broken.json', '[{'))).toThrow(/: invalid JSON \(/);
    expect(() => loadCatalog(join(dir, 'missing.json'))).toThrow(
      /AXLE_CATALOG .*missing\.json: cannot read file \(ENOENT\)/,
    );
  });
});
