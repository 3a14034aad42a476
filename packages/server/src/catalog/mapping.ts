// Rules that turn source rows into catalog fields. Pure: no I/O, no clock, no randomness, so the
// importer's output depends only on its inputs. The README next to skills.json documents each rule.
import type { Skill } from '@axle/sdk';
import { toolWords } from '../domain/tool-words.js';

export type Category = Skill['category'];

/** public-apis section heading -> our taxonomy. Sections listed in COARSE_SECTIONS may be overridden by text. */
export const PUBLIC_APIS_CATEGORY: Readonly<Record<string, Category>> = {
  Animals: 'content-generation',
  Anime: 'content-generation',
  'Anti-Malware': 'monitoring',
  'Art & Design': 'content-generation',
  'Authentication & Authorization': 'code-execution',
  Blockchain: 'payment-financial',
  Books: 'data-processing',
  Business: 'data-processing',
  Calendar: 'data-processing',
  'Cloud Storage & File Sharing': 'storage-state',
  'Continuous Integration': 'code-execution',
  Cryptocurrency: 'payment-financial',
  'Currency Exchange': 'payment-financial',
  'Data Validation': 'data-processing',
  Development: 'code-execution',
  Dictionaries: 'data-processing',
  'Documents & Productivity': 'data-processing',
  Email: 'communication',
  Entertainment: 'content-generation',
  // Air quality, energy and carbon figures are data looked up, like a forecast.
  Environment: 'data-processing',
  Events: 'data-processing',
  Finance: 'payment-financial',
  'Food & Drink': 'data-processing',
  'Games & Comics': 'content-generation',
  Geocoding: 'data-processing',
  Government: 'data-processing',
  Health: 'data-processing',
  Jobs: 'data-processing',
  'Machine Learning': 'data-processing',
  Music: 'content-generation',
  News: 'web-interaction',
  'Open Data': 'data-processing',
  'Open Source Projects': 'code-execution',
  Patent: 'data-processing',
  Personality: 'content-generation',
  Phone: 'communication',
  Photography: 'content-generation',
  Programming: 'code-execution',
  'Science & Math': 'data-processing',
  Security: 'monitoring',
  Shopping: 'payment-financial',
  Social: 'communication',
  'Sports & Fitness': 'data-processing',
  'Test Data': 'content-generation',
  'Text Analysis': 'data-processing',
  Tracking: 'monitoring',
  Transportation: 'data-processing',
  'URL Shorteners': 'web-interaction',
  Vehicle: 'data-processing',
  Video: 'content-generation',
  // A forecast is data looked up, not a watch kept on one's own systems.
  Weather: 'data-processing',
};

/** Sections too broad for one category: their rows are classified by text first, the section default last. */
export const COARSE_SECTIONS: ReadonlySet<string> = new Set([
  'Development',
  'Business',
  'Documents & Productivity',
  'Machine Learning',
  'Open Source Projects',
  'Transportation',
]);

/**
 * Sections that are mostly one kind of thing but list others: their rows are tried against these rules (what the
 * entry is, not what it guards) before the section's category. Security lists threat feeds and scanners
 * (monitoring) beside password managers, sign-in services, hashing and password generators.
 */
export const SECTION_RULES: Readonly<Record<string, ReadonlyArray<readonly [Category, RegExp]>>> = {
  Security: [
    [
      'storage-state',
      /\b(password managers?|vaults?|secrets? (managers?|management|storage)|(encrypted|secure) (data|file|note)s? sharing|data sharing)\b/i,
    ],
    ['payment-financial', /\b(credit card numbers?|virtual (credit |payment )?cards?|payment cards?)\b/i],
    [
      'code-execution',
      /\b(authentication|authori[sz]ation|sign[- ]?in|log[- ]?in|identity|sso|oauth|certificate signing|code smells|static analysis)\b/i,
    ],
    ['content-generation', /\b(generat\w* (random )?passwords?|password generat\w*)\b/i],
    [
      'data-processing',
      /\b(encrypt\w*|decrypt\w*|hash(es|ing)?|cryptographic|escap\w*|offenders|criminal|police|crimes?)\b/i,
    ],
  ],
};

/**
 * Rules naming what an entry is about, tried before everything else (Docker's own category included): weather and
 * other fields of knowledge are data looked up, whatever else the text says (weather alerts, search flights); an
 * issue tracker keeps state (not monitoring's "tracking"); CI runs code (GitHub Actions).
 */
export const SUBJECT_RULES: ReadonlyArray<readonly [Category, RegExp]> = [
  ['data-processing', /\b(weather|forecasts?|meteorolog\w*)\b/i],
  [
    'data-processing',
    /\b(flights?|airports?|travel|geocod\w*|geospatial|gis|qgis|mapbox|openstreetmap|air quality|pollution|sports|nba|nfl|chemistry|chemicals?|pubchem|molecul\w*|arxiv|research papers|academic|wikidata|dicom|medical|clinical)\b/i,
  ],
  // A message queue keeps messages for programs, not people ("messages" alone reads as communication).
  [
    'storage-state',
    /\b(issue[ -]track\w*|project[ -]management|task[ -]management|message (queues?|brokers?)|rabbitmq|kafka)\b/i,
  ],
  [
    'code-execution',
    /\b(github actions|gitlab ci|ci\/cd|continuous integration|circleci|buildkite|jenkins|travis( ci)?)\b/i,
  ],
  // A server that manages, routes or lists other MCP servers is developer tooling, whatever it proxies or searches.
  [
    'code-execution',
    /\bmcp (routers?|managers?|marketplaces?|registr(y|ies)|director(y|ies)|gateways?|prox(y|ies)|badges|discovery|hubs?|package managers?)\b/i,
  ],
];

/**
 * Text rules, first match wins, after SUBJECT_RULES. Used for rows of coarse sections and for every MCP server
 * (the registry seed has no categories). Word boundaries keep "mail" from matching "email-like" noise.
 */
export const TEXT_RULES: ReadonlyArray<readonly [Category, RegExp]> = [
  [
    'payment-financial',
    /\b(payments?|invoic\w*|checkout|billing|bank\w*|stocks?|trading|forex|exchange rates?|crypto(?!graph)\w*|bitcoin|ethereum|evm|solana|blockchain|defi|wallets?|usdc|accounting|financ\w*|uniswap|stripe|xero|coin\w*|swaps?|trad(e|es|ing)|metatrader|edgar|sec filings|blockchains|erc-?\d+|razorpay|budget\w*|ynab|invest(ing|ments?|ors?)|portfolios?|morningstar|prediction markets?|algorand|hyperliquid|binance|bsc|multiversx|thirdweb|e-?commerce|shopify|woocommerce|storefronts?)\b/i,
  ],
  [
    'monitoring',
    /\b(monitor\w*|observability|uptime|outages?|incidents?|status pages?|alert\w*|metrics|logs|logging|tracing|grafana|prometheus|datadog|sentry|dynatrace|honeycomb|real-time status|vulnerabilit\w*|security (scan\w*|tests?|testing|issues|alerts?|analysis|analytics|posture|findings|audits?|configurations?|misconfigurations?|intelligence)|zero trust|firewalls?|threat intel\w*|opencti|siem|cves?|pentest\w*|malware|threats?|phishing|tracking|trackers?|raygun|logfire|axiom|apm|opentelemetry|error tracking|crash\w*)\b/i,
  ],
  [
    'communication',
    /\b(e-?mails?|mailbox|inbox|sms|text messages?|messag\w*|chat\w*|slack|discord|telegram|whatsapp|teams|notifications?|push notifications?|twitter|tweets?|social media|phone calls?|voip|zoom|meetings?|calendars?|gmail|mailgun|sendgrid|imessage|forums?|discourse|crm|salesforce|hubspot|intercom|ntfy|pushover)\b/i,
  ],
  [
    'storage-state',
    /\b(databases?|sql|mysql|postgres\w*|sqlite|mongo\w*|redis|vector (store|database|search)|qdrant|pinecone|chroma|milvus|neo4j|memgraph|clickhouse|duckdb|motherduck|couchbase|storage|file (sharing|hosting|uploads?|system)|filesystem|s3|key-value|json store|memory|knowledge (graph|base|management)|notes?|bookmark\w*|airtable|notion|obsidian|jira|confluence|linear|clickup|todoist|trello|asana|task (management|lists?)|google tasks|todos?|to-do|project management|git|github|gitlab|bitbucket|gitee|db|mariadb|elasticsearch|opensearch|snowflake|bigquery|influxdb|iotdb|greptime\w*|astra|singlestore|tinybird|typesense|lucene|databricks|firebase|momento|cach(e|ing)|mssql|sql server|hologres|kintone|bitable|mem0|wikis?|kibela|anki|flashcards?|box|remember\w*|productboard|fibery|monday\.com|meilisearch|algolia|search index\w*|tickets?|ticketing|helpdesk|servicenow|itsm|password managers?|secrets? manag\w*|1password|bitwarden|keepass)\b/i,
  ],
  [
    'web-interaction',
    /\b(brows\w*|scrap\w*|crawl\w*|web search|search engines?|serp|screenshot\w*|websearch|searxng|web pages?|websites?|playwright|puppeteer|proxy|dns|whois|domains?|user-agent|rss|ip|ip address\w*|news)\b/i,
  ],
  [
    'content-generation',
    /\b(generat(e|es|ing|ion|or|ors|ive)|image\w*|videos?|audio|speech|text-to-speech|tts|music|design\w*|figma|diagrams?|charts?|presentations?|slides|placeholder|lorem ipsum|qr codes?|avatars?|translat\w*|media|cms|contentful|ghost|blender|elevenlabs|davinci|vegalite|3d|movies?|films?|tmdb|artworks?|museums?|mind ?maps?|xmind|shaders?|shadertoy|locali[sz]\w*|spotify|language models?|deepseek|qwen|replicate|novita|hugging ?face spaces|copywriting|writing techniques|marketing (copy|content|techniques)|ableton|reaper|daw|webflow|wordpress|drupal|website builders?)\b/i,
  ],
  [
    'code-execution',
    /\b(compil\w*|execut\w*|sandbox\w*|interpreter|shell|terminal|command[- ]line|kubernetes|k8s|docker|containers?|deploy\w*|ci\/cd|continuous integration|ide|jupyter|notebooks?|inspector|debug\w*|lsp|devops|infrastructure|terraform|pulumi|fastapi|nomad|consul|xcode\w*|jmeter|simulators?|airflow|postman|openapi|swagger|graphql|api gateway|neovim|vim|game engine|ides?|editors?|language servers?|lldb|gdb|debuggers?|iterm|devtools|android|adb|ios|mlops|hosting|jetbrains|intellij|ros2?|kicad|mcp clients?|package managers?|n8n|zapier|make\.com|integromat|prefect|workflow automation|automation platforms?|identity (providers?|management|platforms?)|user management|single sign-on|sso|iam|okta|keycloak|auth0|descope|codacy|code quality|code review|static analysis|linters?|codemirror|\.net|dotnet|nuget|csharp|json-rpc|openrpc|rpc|frontend|front-end|ui components?|macos|applescript|shortcuts|computer use|desktop automation)\b/i,
  ],
  [
    'data-processing',
    /\b(data|datasets?|analytics|excel|csv|spreadsheets?|pdf|documents?|convert\w*|conversion|pars\w*|extract\w*|ocr|validat\w*|queries|query|etl|nlp|sentiment|classif\w*|embeddings?|sheets|calculat\w*|math\w*|solv\w*|optimi[sz]ation|unstructured)\b/i,
  ],
];

/**
 * MCP servers nothing places (a bare product name, no tools): filed as data processing, the broadest category,
 * rather than as code execution, which would claim them as developer tooling.
 */
export const MCP_DEFAULT_CATEGORY: Category = 'data-processing';

/**
 * Words that name a field only loosely ("search flights", "an AWS service", "code examples", "MCP servers"):
 * tried only when no rule of TEXT_RULES matches.
 */
export const WEAK_TEXT_RULES: ReadonlyArray<readonly [Category, RegExp]> = [
  ['web-interaction', /\b(search|fetch\w*|url|urls|http)\b/i],
  [
    'code-execution',
    /\b(code|cloud|aws|azure|framework|sdk|library|templates?|cli|mcp servers|developers?|builds?|workflows?)\b/i,
  ],
  ['monitoring', /\b(security|secure)\b/i],
];

const firstMatch = (rules: ReadonlyArray<readonly [Category, RegExp]>, text: string) =>
  rules.find(([, re]) => re.test(text))?.[0];

export function categoryFromText(text: string): Category | undefined {
  return firstMatch(SUBJECT_RULES, text) ?? firstMatch(TEXT_RULES, text) ?? firstMatch(WEAK_TEXT_RULES, text);
}

export function categorizePublicApi(section: string, text: string): Category {
  const base = PUBLIC_APIS_CATEGORY[section];
  if (base === undefined) throw new Error(`public-apis: unmapped section "${section}"`);
  const bySection = firstMatch(SECTION_RULES[section] ?? [], text);
  if (bySection !== undefined) return bySection;
  return COARSE_SECTIONS.has(section) ? (categoryFromText(text) ?? base) : base;
}

/** Docker's own categories. Those in DOCKER_TRUSTED decide; the others are used when nothing else matches. */
export const DOCKER_CATEGORY: Readonly<Record<string, Category>> = {
  database: 'storage-state',
  knowledge: 'storage-state',
  productivity: 'storage-state',
  monitoring: 'monitoring',
  security: 'monitoring',
  'cost-management': 'monitoring',
  finance: 'payment-financial',
  fintech: 'payment-financial',
  payments: 'payment-financial',
  blockchain: 'payment-financial',
  ecommerce: 'payment-financial',
  commerce: 'payment-financial',
  communication: 'communication',
  messaging: 'communication',
  crm: 'communication',
  search: 'web-interaction',
  web: 'web-interaction',
  'web-scraping': 'web-interaction',
  news: 'web-interaction',
  media: 'content-generation',
  video: 'content-generation',
  'data-visualization': 'content-generation',
  analytics: 'data-processing',
  'data-analytics': 'data-processing',
  maps: 'data-processing',
  geospatial: 'data-processing',
  travel: 'data-processing',
  healthcare: 'data-processing',
  documentation: 'data-processing',
};

/**
 * Docker's categories that name one field (a database, a payment service, a map): they outrank the text rules, whose
 * words can be incidental ("manage, monitor and query CockroachDB"). The broad ones (productivity, search,
 * analytics, security; monitoring, which Docker gives blockchain explorers too) only break ties with nothing.
 */
export const DOCKER_TRUSTED: ReadonlySet<string> = new Set([
  'database',
  'cost-management',
  'finance',
  'fintech',
  'payments',
  'blockchain',
  'ecommerce',
  'commerce',
  'communication',
  'crm',
  'web-scraping',
  'news',
  'media',
  'video',
  'maps',
  'geospatial',
  'travel',
  'healthcare',
]);

/** Docker tags that every kind of server carries ("devops" on a search engine, "ai" on most): no evidence of a field. */
export const GENERIC_DOCKER_TAGS: ReadonlySet<string> = new Set([
  'devops',
  'ai',
  'ai-ml',
  'mcp',
  'tools',
  'productivity',
  'development',
  'developer-tools',
  'devtools',
  'integration',
  'automation',
  'remote',
  // Says the server needs credentials, not what it is for.
  'secrets',
]);

/** What an MCP server's category is read from besides its name and description. */
export interface McpCategoryEvidence {
  /** Docker's category for the server. */
  category?: string;
  /** Its tools, read only when the name and description match no rule. */
  tools?: readonly { name: string; description: string }[];
}

/**
 * In order: SUBJECT_RULES on name, description and informative tags; Docker's category when it names one field; the
 * other text rules; the tools' names and descriptions (`search_flights` -> search flights); Docker's broad
 * category. Undefined when none of them places the server.
 */
export function placeMcpServer(text: string, evidence: McpCategoryEvidence = {}): Category | undefined {
  const subject = firstMatch(SUBJECT_RULES, text);
  if (subject !== undefined) return subject;
  const { category } = evidence;
  const docker = category === undefined ? undefined : DOCKER_CATEGORY[category];
  if (docker !== undefined && category !== undefined && DOCKER_TRUSTED.has(category)) return docker;
  const tools = (evidence.tools ?? []).map((t) => `${toolWords(t.name)} ${t.description}`).join(' ');
  return categoryFromText(text) ?? (tools ? categoryFromText(tools) : undefined) ?? docker;
}

/** Docker's tags minus those every kind of server carries. */
export function informativeDockerTags(tags: readonly string[]): string[] {
  return tags.filter((t) => !GENERIC_DOCKER_TAGS.has(t.toLowerCase()));
}

/**
 * Whether an environment variable holds a credential, judged by its name (the seed has no secret
 * flag; Docker's catalog marks its secrets itself).
 */
export function looksSecret(name: string): boolean {
  return /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PAT|CREDENTIALS?|AUTH)(_|$)/i.test(name);
}

/**
 * Topic tags recognised in names and descriptions, in the order they are added. A closed vocabulary
 * keeps tags comparable across entries (free-text keywords would be mostly noise).
 */
export const TAG_VOCABULARY: ReadonlyArray<readonly [string, RegExp]> = [
  ['ai', /\b(ai|llms?|gpt|machine learning|ml|models?)\b/i],
  ['images', /\b(images?|pictures?|photos?|gifs?|icons?)\b/i],
  ['video', /\b(videos?|movies?|films?|streaming)\b/i],
  ['audio', /\b(audio|speech|voice|podcasts?|sounds?)\b/i],
  ['text', /\b(text|nlp|language|words?|translat\w*)\b/i],
  ['search', /\b(search\w*|lookup|find)\b/i],
  ['weather', /\b(weather|forecasts?|climate)\b/i],
  ['maps', /\b(maps?|geocod\w*|geolocation|coordinates|addresses?|places?)\b/i],
  ['ip', /\b(ip|ip addresses?)\b/i],
  ['email', /\b(e-?mails?)\b/i],
  ['chat', /\b(chat\w*|messag\w*|slack|discord|telegram)\b/i],
  ['crypto', /\b(crypto\w*|bitcoin|ethereum|blockchain|tokens?|defi|nft)\b/i],
  ['payments', /\b(payments?|invoic\w*|checkout|billing)\b/i],
  ['stocks', /\b(stocks?|markets?|trading)\b/i],
  ['database', /\b(databases?|sql|mysql|postgres\w*|mongo\w*|redis)\b/i],
  ['files', /\b(files?|uploads?|storage)\b/i],
  ['documents', /\b(documents?|pdf|docs)\b/i],
  ['browser', /\b(brows\w*|scrap\w*|crawl\w*|screenshots?)\b/i],
  ['code', /\b(code|programming|developers?)\b/i],
  ['git', /\b(git|github|gitlab|bitbucket)\b/i],
  ['cloud', /\b(cloud|aws|azure|gcp|kubernetes|docker)\b/i],
  ['security', /\b(security|malware|phishing|threats?|vulnerabilit\w*|fraud)\b/i],
  ['monitoring', /\b(monitor\w*|observability|metrics|logs|alerts?|status)\b/i],
  ['government', /\b(government|gov|public sector|census)\b/i],
  ['health', /\b(health|medical|covid|drugs?|disease)\b/i],
  ['sports', /\b(sports?|football|soccer|basketball|baseball|nba|nfl|fitness)\b/i],
  ['games', /\b(games?|gaming)\b/i],
  ['music', /\b(music|songs?|lyrics|artists?)\b/i],
  ['news', /\b(news|articles?|headlines)\b/i],
  ['books', /\b(books?|literature|novels?)\b/i],
  ['social', /\b(social|twitter|reddit|instagram|facebook|linkedin)\b/i],
  ['transport', /\b(transit|transport\w*|trains?|bus|flights?|airports?|railways?)\b/i],
  ['random', /\b(random)\b/i],
  ['realtime', /\b(real-?time|live)\b/i],
];

export const MAX_TAGS = 6;

/** Lower-case dashed words, ASCII only (accents folded), as used in ids and tags. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Source tags first (they are the most reliable), then topics found in the text; deduplicated, capped. */
export function deriveTags(sourceTags: readonly string[], text: string): string[] {
  const tags = sourceTags.map((t) => slugify(t)).filter((t) => t.length > 0);
  for (const [tag, re] of TAG_VOCABULARY) if (re.test(text)) tags.push(tag);
  return [...new Set(tags)].slice(0, MAX_TAGS);
}

/** Section headings become tags word by word: "Science & Math" -> science, math. */
export function sectionTags(section: string): string[] {
  return slugify(section)
    .split('-')
    .filter((w) => w.length > 1);
}

export interface Pricing {
  model: string;
  cost_usd: string;
  note: string;
}

/**
 * public-apis only lists APIs usable for free. Without authentication that means free to call; with
 * a key or OAuth it means a free tier behind sign-up, with paid plans the list does not describe.
 */
export function pricingForWebApi(auth: string): Pricing {
  if (auth === 'none' || auth === 'User-Agent') {
    return {
      model: 'free',
      cost_usd: '0',
      note: 'No sign-up needed per the public-apis list; provider rate limits may apply.',
    };
  }
  return {
    model: 'freemium',
    cost_usd: 'unknown',
    note: `Requires ${auth}; listed as having free access, paid plans not published in the source. See docs.`,
  };
}

export function pricingForMcpServer(env: readonly string[]): Pricing {
  const upstream =
    env.length > 0 ? ` The service behind it (configured via ${env.join(', ')}) may charge separately.` : '';
  return {
    model: 'free',
    cost_usd: '0',
    note: `Open-source MCP server, self-hosted.${upstream}`,
  };
}

/** A server the provider hosts (a remote endpoint only): nothing to run, and the source publishes no prices. */
export function pricingForHostedMcpServer(): Pricing {
  return {
    model: 'unknown',
    cost_usd: 'unknown',
    note: 'Hosted by the provider (a remote MCP endpoint); pricing is not published in the source. See docs.',
  };
}

export interface Quality {
  reliability: number;
  verified: boolean;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * Observable signals only; nobody has called these endpoints, so nothing is `verified`.
 * Web API: 0.5 base, +0.2 HTTPS, +0.1 CORS status known, +0.1 CORS allowed (callable from a browser).
 */
export function qualityForWebApi(https: boolean, cors: 'yes' | 'no' | 'unknown'): Quality {
  let r = 0.5;
  if (https) r += 0.2;
  if (cors !== 'unknown') r += 0.1;
  if (cors === 'yes') r += 0.1;
  return { reliability: round2(r), verified: false };
}

/**
 * MCP server: 0.4 base, +0.2 published to npm/PyPI/Docker (a known launch command), +0.1 a pinned
 * package version, +0.1 a description, +0.1 a repository URL.
 */
export function qualityForMcpServer(signals: {
  launchable: boolean;
  versioned: boolean;
  described: boolean;
  hasRepository: boolean;
}): Quality {
  let r = 0.4;
  if (signals.launchable) r += 0.2;
  if (signals.versioned) r += 0.1;
  if (signals.described) r += 0.1;
  if (signals.hasRepository) r += 0.1;
  return { reliability: round2(r), verified: false };
}
