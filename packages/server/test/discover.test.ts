import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Skill } from '@axle/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/backend.js';
import { startTestServer, type TestServer } from '../../../test/support/server.js';
import { loadCatalog } from '../src/catalog/load.js';
import { slugify } from '../src/catalog/mapping.js';
import type { SemanticIndex } from '../src/search/semantic-index.js';
import { createSkillSearch } from '../src/services/skill-search.js';
import type { Database } from '../src/store/db.js';
import type { PostgresDatabase } from '../src/store/postgres/db.js';
import { createPostgresSkillsStore } from '../src/store/postgres/skills.js';
import type { Queryable, TxOptions } from '../src/store/queryable.js';
import { createSkillsStore, type SkillFilters, type SkillsStore } from '../src/store/skills.js';
import { SMALL_CATALOG } from './search-helpers.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ AXLE_CATALOG: SMALL_CATALOG });
});
afterAll(() => server.stop());

async function discover(body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${server.url}/discover`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
const ids = (json: any): string[] => json.results.map((r: { id: string }) => r.id);

describe('POST /discover (lexical)', () => {
  it('ranks the obvious match first and reports the response shape', async () => {
    const { status, json } = await discover({ query: 'send an email to a customer' });
    expect(status).toBe(200);
    expect(ids(json)[0]).toBe('postmark');
    expect(json).toMatchObject({
      query: 'send an email to a customer',
      filters: {},
      knowledge_hint: null,
      search_mode: 'lexical',
    });
    expect(json.results_count).toBe(json.results.length);
    expect(json.results[0].relevance).toBe(1);
    for (const r of json.results) expect(r.relevance).toBeGreaterThan(0), expect(r.relevance).toBeLessThanOrEqual(1);
    const rel = json.results.map((r: { relevance: number }) => r.relevance);
    expect(rel).toEqual([...rel].sort((a, b) => b - a));
    expect(Number.isNaN(Date.parse(json.timestamp))).toBe(false);
    expect(json.results[0].connection.endpoint).toBe('https://api.postmarkapp.com');
  });

  it('stems words and weighs the name above the description', async () => {
    expect(ids((await discover({ query: 'forecasting' })).json)[0]).toBe('weatherstack');
    expect(
      ids((await discover({ query: 'monitoring' })).json)
        .slice(0, 2)
        .sort(),
    ).toEqual(['sentry-mcp', 'uptimerobot']);
    // "sentry" is a name, "errors" a tag and "issues" only in the description of one skill; all point to the same one.
    expect(ids((await discover({ query: 'Sentry errors' })).json)[0]).toBe('sentry-mcp');
  });

  it('applies category, type and pricing filters and echoes them', async () => {
    const byCategory = await discover({ query: 'send messages', category: 'communication' });
    expect(byCategory.json.filters).toEqual({ category: 'communication' });
    expect(byCategory.json.results.length).toBeGreaterThan(0);
    for (const r of byCategory.json.results) expect(r.category).toBe('communication');

    const byType = await discover({ query: 'send messages', type: 'mcp_server' });
    expect(ids(byType.json)).toEqual(['slack-mcp']);

    // Twilio (free) matches "send" and "text" too; only freemium skills remain.
    const byPricing = await discover({ query: 'send email text', pricing: 'FREEMIUM' });
    expect(ids(byPricing.json)).toEqual(['postmark', 'deepl']);
    for (const r of byPricing.json.results) expect(r.pricing.model).toBe('freemium');
    expect(byPricing.json.filters).toEqual({ pricing: 'FREEMIUM' });

    const none = await discover({ query: 'weather', category: 'monitoring' });
    expect(none.json).toMatchObject({ results_count: 0, results: [] });
  });

  it('honours limit and defaults to 10', async () => {
    const wide =
      'weather email sms payments crypto translate uptime ip books github browser sql files python sentry slack';
    expect((await discover({ query: wide })).json.results_count).toBe(10);
    expect((await discover({ query: wide, limit: 25 })).json.results_count).toBe(16);
    expect((await discover({ query: wide, limit: 1 })).json.results_count).toBe(1);
  });

  it.each([
    ['"'],
    ['*'],
    ['NEAR('],
    ['-'],
    ['AND'],
    ['email AND OR NOT'],
    ['name:email'],
    ['^email*'],
    ['"unbalanced email'],
    ['🚀📧'],
    ['email 📧 🚀'],
    ['x'.repeat(1000)],
    ['(((('],
  ])('never breaks on hostile query %j', async (query) => {
    const { status, json } = await discover({ query });
    expect(status).toBe(200);
    expect(json.results_count).toBe(json.results.length);
  });

  it.each([
    [{}, 'body.query'],
    [{ query: '' }, 'body.query'],
    [{ query: '   ' }, 'body.query'],
    [{ query: 42 }, 'body.query'],
    [{ query: 'a'.repeat(1001) }, 'body.query'],
    [{ query: 'email', category: 'cooking' }, 'body.category'],
    [{ query: 'email', type: 'plugin' }, 'body.type'],
    [{ query: 'email', pricing: 7 }, 'body.pricing'],
    [{ query: 'email', limit: 0 }, 'body.limit'],
    [{ query: 'email', limit: 26 }, 'body.limit'],
    [{ query: 'email', limit: 2.5 }, 'body.limit'],
    [{ query: 'email', limit: '5' }, 'body.limit'],
  ])('400 for %j naming %s', async (body, field) => {
    const { status, json } = await discover(body);
    expect(status).toBe(400);
    expect(json).toMatchObject({ code: 'validation_error', field });
    expect(json.error).toContain(field);
  });

  it('needs no key, but refuses an unknown one with 401 Invalid API key', async () => {
    for (const [method, path, body] of [
      ['POST', '/discover', JSON.stringify({ query: 'browser automation' })],
      ['GET', '/skill/playwright-mcp', undefined],
    ] as const) {
      const open = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(open.status).toBe(200);
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': 'axl_unknown' },
        body,
      });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'Invalid API key', code: 'invalid_api_key' });
    }
  });
});

describe('GET /skill/{id}', () => {
  const get = async (id: string) => {
    const res = await fetch(`${server.url}/skill/${encodeURIComponent(id)}`);
    return { status: res.status, json: (await res.json()) as any };
  };

  it('finds a skill by id with a connection preview', async () => {
    const { status, json } = await get('github-mcp');
    expect(status).toBe(200);
    expect(json).toMatchObject({ id: 'github-mcp', name: 'GitHub MCP Server', type: 'mcp_server' });
    expect(json.relevance).toBeUndefined();
    expect(json.content_preview).toContain('Run: npx -y @modelcontextprotocol/server-github (stdio transport)');
    expect(json.content_preview).toContain("Auth: set GITHUB_TOKEN (secret) in the server's environment");
    expect(json.content_preview).toContain('https://github.com/example/github-mcp');
  });

  it("shows an MCP server's tools and install variables, secrets marked; search finds it by a tool and leaves the list out", async () => {
    const { json } = await get('github-mcp');
    expect(json.tools.map((t: { name: string }) => t.name)).toEqual(['create_pull_request', 'search_issues']);
    expect(json.install.env).toEqual([{ name: 'GITHUB_TOKEN', secret: true, description: 'Personal access token' }]);
    expect(json.content_preview).toContain('GITHUB_TOKEN (secret)');
    expect(json.content_preview).toContain('Tools: create_pull_request, search_issues');
    const res = await fetch(`${server.url}/discover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Only a tool's description says "branch".
      body: JSON.stringify({ query: 'branch' }),
    });
    const body = (await res.json()) as any;
    expect(body.results[0]).toMatchObject({ id: 'github-mcp', install: { env: [{ name: 'GITHUB_TOKEN' }] } });
    expect(body.results[0].tools).toBeUndefined();
  });

  it("shows a skill's examples; search finds it by an example's words and leaves the examples out", async () => {
    const { json } = await get('uptimerobot');
    expect(json.examples).toEqual(['is my homepage reachable from everywhere', 'tell me when the shop goes offline']);
    const res = await fetch(`${server.url}/discover`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // Only an example says "homepage" or "offline".
      body: JSON.stringify({ query: 'homepage offline' }),
    });
    const body = (await res.json()) as any;
    expect(body.results[0].id).toBe('uptimerobot');
    expect(body.results[0].examples).toBeUndefined();
  });

  it('finds a skill by case-insensitive id or by a slug of its name', async () => {
    expect((await get('GitHub-MCP')).json.id).toBe('github-mcp');
    expect((await get('GitHub MCP Server')).json.id).toBe('github-mcp');
    expect((await get('stripe')).json.id).toBe('stripe-payments');
    expect((await get('deepl-translate')).json.id).toBe('deepl');
    const api = await get('Weatherstack');
    expect(api.json.content_preview).toContain('Connect: https://api.weatherstack.com (https)');
    expect(api.json.content_preview).toContain('Auth: an API key from the provider');
    expect(api.json.content_preview).toContain('Pricing: freemium');
  });

  it('404s an unknown skill', async () => {
    const { status, json } = await get('no-such-skill');
    expect(status).toBe(404);
    expect(json).toMatchObject({ code: 'not_found' });
  });

  // Found by asking for ids of punctuation and other scripts: such an id has the empty slug, as has a skill whose name
  // has no Latin letter or digit (a registry server titled in Japanese), so GET /skill/!!! answered that skill.
  it('404s an id with no letter or digit to slug, whatever names have no slug either', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-slug-'));
    const catalog = path.join(dir, 'skills.json');
    const small = JSON.parse(fs.readFileSync(SMALL_CATALOG, 'utf8'));
    fs.writeFileSync(catalog, JSON.stringify([...small, { ...small[0], id: 'tenki-yoho', name: '天気予報' }]));
    const other = await startTestServer({ AXLE_CATALOG: catalog });
    try {
      const at = async (id: string) => (await fetch(`${other.url}/skill/${encodeURIComponent(id)}`)).status;
      expect(await at('tenki-yoho')).toBe(200);
      for (const id of ['!!!', '天気', '✓', '---']) expect(await at(id), id).toBe(404);
    } finally {
      await other.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('GET /health search state', () => {
  it('reports lexical ready and semantic disabled when AXLE_SEMANTIC_SEARCH=off', async () => {
    const res = await fetch(`${server.url}/health`);
    expect((await res.json()).search).toEqual({ lexical: 'ready', semantic: 'disabled' });
  });
});

/** Records the text of every statement `store`'s database is sent from now on (on the pool, outside transactions). */
function recordStatements(store: Awaited<ReturnType<typeof openTestStore>>): string[] {
  const statements: string[] = [];
  for (const method of ['all', 'get'] as const) {
    const original = store.db[method].bind(store.db) as (sql: string, params?: unknown[]) => Promise<unknown>;
    (store.db as unknown as Record<string, unknown>)[method] = (sql: string, params?: unknown[]) => {
      statements.push(sql);
      return original(sql, params);
    };
  }
  return statements;
}

describe('lexical rankings in the store (what fused search fuses)', () => {
  it('ranks the same matches by field weights, as lexical search, and by the whole record (every column alike)', async () => {
    const store = await openTestStore();
    try {
      await store.skills.replaceCatalog(
        loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
        'fp',
      );
      const order = (hits: Array<{ id: string }>) => hits.map((h) => h.id);
      // "weatherstack" is a name (weight 10 of the fields), "smtp" a tag (6): alike, the rarer word and shorter record win.
      const { fields, flat } = await store.skills.lexicalRankings('weatherstack smtp', {}, 10);
      expect(order(fields)).toEqual(order(await store.skills.lexicalSearch('weatherstack smtp', {}, 10)));
      expect(order(fields)).toEqual(['weatherstack', 'postmark']);
      expect(order(flat)).toEqual(['postmark', 'weatherstack']);
      const filtered = await store.skills.lexicalRankings('weatherstack smtp', { category: 'communication' }, 5);
      expect([order(filtered.fields), order(filtered.flat)]).toEqual([['postmark'], ['postmark']]);
      expect(await store.skills.lexicalRankings('...', {}, 10)).toEqual({ fields: [], flat: [], tools: [] });
    } finally {
      await store.close();
    }
  });
  it('tells whether a text holds a term that is not common in the catalog', async () => {
    const store = await openTestStore();
    try {
      await store.skills.replaceCatalog(
        loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
        'fp',
      );
      // A small catalog has no common term (COMMON_TERM_MIN_ROWS); a term no skill holds is not common either.
      expect(await store.skills.holdsRareTerm('data, Weatherstack')).toBe(true);
      expect(await store.skills.holdsRareTerm('zyxwvut')).toBe(true);
      expect(await store.skills.holdsRareTerm('...')).toBe(false);
    } finally {
      await store.close();
    }
  });
  it("folds a Latin letter's accents as SQLite's tokenizer does: pokemon finds Pokémon and pokémon Pokemon", async () => {
    const store = await openTestStore();
    try {
      const [base] = loadCatalog(SMALL_CATALOG);
      const skill = (id: string, name: string) => ({ ...base!, id, name, description: 'Trading card prices' });
      await store.skills.replaceCatalog(
        [skill('tcg', 'Pokémon cards'), skill('dex', 'Pokemon'), skill('iodine', 'Йод')].map((s) => ({
          skill: s,
          slug: slugify(s.name),
        })),
        'fp',
      );
      const found = async (query: string) => (await store.skills.lexicalSearch(query, {}, 10)).map((h) => h.id).sort();
      expect(await found('pokemon')).toEqual(['dex', 'tcg']);
      expect(await found('POKÉMON')).toEqual(['dex', 'tcg']);
      expect((await store.skills.lexicalRankings('pokémon', {}, 10)).flat.map((h) => h.id).sort()).toEqual([
        'dex',
        'tcg',
      ]);
      // Other scripts keep their marks, as on SQLite: й is a letter of its own, not an accented и.
      expect(await found('йод')).toEqual(['iodine']);
      expect(await found('иод')).toEqual([]);
    } finally {
      await store.close();
    }
  });
  it("asks PostgreSQL for a query text's lexemes once, for skills and learnings alike, and searches the same after", async () => {
    const store = await openTestStore();
    try {
      await store.skills.replaceCatalog(
        loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
        'fp',
      );
      const first = await store.skills.lexicalRankings('weatherstack smtp', {}, 10);
      const statements = recordStatements(store);
      // The same terms (case, punctuation and stopwords aside) in both corpora at once, then again.
      await Promise.all([
        store.skills.lexicalRankings('Weatherstack, SMTP', {}, 10),
        store.learningsSearch.anyMatch('the weatherstack smtp'),
      ]);
      expect(await store.skills.lexicalRankings('weatherstack smtp', {}, 10)).toEqual(first);
      expect(await store.learningsSearch.anyMatch('weatherstack smtp')).toBe(false);
      expect(statements.filter((sql) => sql.includes('to_tsvector'))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('passage vectors in the store', () => {
  it('keeps one vector a passage text, found by hash in batches, the first one stored kept', async () => {
    const store = await openTestStore();
    try {
      const unit = (i: number) => Float32Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0));
      const hashes = Array.from({ length: 1200 }, (_, i) => `h${i}`);
      await store.skills.savePassageVectors(
        'm',
        hashes.map((textHash, i) => ({ textHash, vector: unit(i) })),
      );
      await store.skills.savePassageVectors('m', [{ textHash: 'h1', vector: unit(3) }]);
      await store.skills.savePassageVectors('other-model', [{ textHash: 'h2', vector: unit(0) }]);
      const found = await store.skills.passageVectors('m', 4, ['h1', 'h2', 'h1199', 'missing', 'h1']);
      expect([...found.keys()].sort()).toEqual(['h1', 'h1199', 'h2']);
      expect([...found.get('h1')!]).toEqual([...unit(1)]);
      expect([...found.get('h2')!]).toEqual([...unit(2)]);
      expect((await store.skills.passageVectors('m', 4, hashes)).size).toBe(1200);
      // A vector of another size (another model's dimension) is not one of these.
      expect((await store.skills.passageVectors('m', 8, ['h1'])).size).toBe(0);
      expect((await store.skills.passageVectors('other-model', 4, ['h1', 'h2'])).size).toBe(1);
    } finally {
      await store.close();
    }
  });
});

describe('passage vectors a catalog no longer wants', () => {
  const unit = (i: number) => Float32Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0));
  const save = (skills: SkillsStore, model: string, hashes: readonly string[]) =>
    skills.savePassageVectors(
      model,
      hashes.map((textHash, i) => ({ textHash, vector: unit(i) })),
    );
  const catalog = (skills: SkillsStore, fingerprint: string) =>
    skills.replaceCatalog(
      loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
      fingerprint,
    );
  /** More than a page (2,000 rows) of one model, and two rows of another. */
  const hashes = Array.from({ length: 2600 }, (_, i) => `h${String(i).padStart(4, '0')}`);
  const keep = new Set([...hashes.filter((_, i) => i % 3 === 0), 'absent']);
  const stored = async (store: Awaited<ReturnType<typeof openTestStore>>) =>
    (
      await store.db.all<{ model: string; text_hash: string }>(
        'SELECT model, text_hash FROM passage_embeddings ORDER BY model, text_hash',
      )
    ).map((r) => `${r.model} ${r.text_hash}`);

  it('tells which of some hashes are stored, in batches, and how many of a save were new', async () => {
    const store = await openTestStore();
    try {
      expect(await save(store.skills, 'm', hashes.slice(0, 700))).toBe(700);
      // Those stored already (another instance saved them first) keep their vectors and are not counted.
      expect(await save(store.skills, 'm', hashes.slice(600, 800))).toBe(100);
      await save(store.skills, 'other-model', ['h0900']);
      const held = await store.skills.heldPassages('m', [...hashes, 'missing', 'h0001']);
      expect([...held].sort()).toEqual(hashes.slice(0, 800));
    } finally {
      await store.close();
    }
  });

  it('counts only the rows it stored when two instances save some of the same passages at once', async () => {
    const store = await openTestStore();
    const other = await store.another();
    try {
      const saved = await Promise.all([
        save(store.skills, 'm', hashes.slice(0, 300)),
        save(other.skills, 'm', hashes.slice(200, 500)),
      ]);
      expect(saved[0] + saved[1]).toBe(500);
      expect(await stored(store)).toEqual(hashes.slice(0, 500).map((h) => `m ${h}`));
    } finally {
      await other.db.close();
      await store.close();
    }
  });

  it("deletes another model's rows and those of the model the catalog does not want, in batches, while the catalog is the stored one", async () => {
    const store = await openTestStore();
    try {
      await catalog(store.skills, 'fp');
      await save(store.skills, 'm', hashes);
      await save(store.skills, 'older-model', ['h0000', 'x']);
      // A caller holding another catalog than the stored one deletes nothing.
      expect(await store.skills.prunePassageVectors('m', keep, 'fp-older')).toBe(0);
      expect(await stored(store)).toHaveLength(hashes.length + 2);
      const wanted = hashes.filter((h) => keep.has(h));
      expect(await store.skills.prunePassageVectors('m', keep, 'fp')).toBe(hashes.length - wanted.length + 2);
      expect(await stored(store)).toEqual(wanted.map((h) => `m ${h}`));
      expect(await store.skills.prunePassageVectors('m', keep, 'fp')).toBe(0);
    } finally {
      await store.close();
    }
  });

  it('stops at the next batch once another instance replaced the catalog', async () => {
    const store = await openTestStore();
    try {
      await catalog(store.skills, 'fp');
      await save(store.skills, 'm', hashes);
      let batches = 0;
      const db = new Proxy(store.db, {
        get(target, prop) {
          if (prop === 'tx')
            return async (fn: (q: Queryable) => Promise<unknown>, opts?: TxOptions) => {
              if (++batches === 2) await catalog(store.skills, 'fp-newer');
              return target.tx(fn, opts);
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const skills =
        store.dialect === 'postgres'
          ? createPostgresSkillsStore(db as PostgresDatabase)
          : createSkillsStore(db as unknown as Database);
      // Deleted by 500: the first batch went, the rest stayed.
      expect(await skills.prunePassageVectors('m', keep, 'fp')).toBe(500);
      expect(await stored(store)).toHaveLength(hashes.length - 500);
    } finally {
      await store.close();
    }
  });
});

describe('skill search statements', () => {
  it("on PostgreSQL reads the postings once per catalog: a fused search then sends at most a new text's lexemes", async () => {
    const store = await openTestStore();
    const other = await store.another();
    try {
      const catalog = loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) }));
      await store.skills.replaceCatalog(catalog, 'fp');
      // A ready semantic side that finds nothing: the lexical side's rankings (and the vocabulary's) make the answer.
      const semantic = {
        state: () => 'ready',
        search: async () => ({ hits: [], vector: new Float32Array(4) }),
        passageScores: () => new Map(),
      } as unknown as SemanticIndex;
      const search = createSkillSearch({ repo: store.skills, semantic });
      const ids = async (query: string) => (await search.search({ query })).results.map((r) => r.id);
      const first = await ids('send an email, or save it on my disk');
      expect(first.slice(0, 2).sort()).toEqual(['filesystem-mcp', 'postmark']);
      const statements = recordStatements(store);
      // Seen before: nothing is sent. Not seen: its lexemes, once for both of its rankings.
      expect(await ids('send an email, or save it on my disk')).toEqual(first);
      const sent = statements.length;
      expect(await ids('weather forecasts: send an email, or save it on my disk')).toContain('weatherstack');
      if (store.db.dialect === 'postgres') {
        expect(sent).toBe(0);
        expect(statements.map((sql) => sql.includes('to_tsvector'))).toEqual([true]);
      }
      // Another instance replaces the catalog; told so (the change feed's reload), this one reads it again.
      await other.skills.replaceCatalog(
        catalog.filter(({ skill }) => skill.id !== 'postmark'),
        'fp2',
      );
      store.skills.forget();
      expect(await ids('send an email, or save it on my disk')).not.toContain('postmark');
      expect(await ids('send an email, or save it on my disk')).toContain('filesystem-mcp');
    } finally {
      await other.db.close();
      await store.close();
    }
  });
});

describe('fused search with the developer vocabulary', () => {
  it('finds a record by the catalog\'s word for a plain request ("my disk" -> filesystem), filters still applied', async () => {
    const store = await openTestStore();
    try {
      await store.skills.replaceCatalog(
        loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
        'fp',
      );
      // A ready semantic side that finds nothing: what is ranked comes from the lexical side alone.
      const semantic = {
        state: () => 'ready',
        search: async () => ({ hits: [], vector: new Float32Array(4) }),
        passageScores: () => new Map(),
      } as unknown as SemanticIndex;
      const ids = async (expansionWeight: number, filters = {}) =>
        (
          await createSkillSearch({ repo: store.skills, semantic, expansionWeight }).search({
            query: 'save it on my disk',
            filters,
          })
        ).results.map((r) => r.id);
      // No record holds "save" or "disk"; the vocabulary adds "filesystem", the name of one.
      expect(await ids(0)).toEqual([]);
      expect(await ids(1)).toEqual(['filesystem-mcp']);
      expect(await ids(1, { category: 'storage-state' })).toEqual(['filesystem-mcp']);
      expect(await ids(1, { category: 'communication' })).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

describe('fused search of a long request', () => {
  const request =
    'We are a team of five building a mobile app, our tickets live in GitHub and we chat in Slack every day. ' +
    'Sentry catches our crashes. Right now I am trying to send text messages to phones when an order ships.';

  it('ranks by the need, embeds the need alone, and keeps the context as a lighter ranking', async () => {
    const store = await openTestStore();
    try {
      await store.skills.replaceCatalog(
        loadCatalog(SMALL_CATALOG).map((skill) => ({ skill, slug: slugify(skill.name) })),
        'fp',
      );
      const embedded: string[] = [];
      const semantic = {
        state: () => 'ready',
        search: async (text: string) => {
          embedded.push(text);
          return { hits: [], vector: new Float32Array(4) };
        },
        passageScores: () => new Map(),
      } as unknown as SemanticIndex;
      const ids = async (contextWeight: number) =>
        (
          await createSkillSearch({ repo: store.skills, semantic, contextWeight }).search({ query: request })
        ).results.map((r) => r.id);
      // The context names three products the catalog holds; the need, one.
      const ranked = await ids(0.3);
      expect(ranked[0]).toBe('twilio-sms');
      expect(ranked).toEqual(expect.arrayContaining(['github-mcp', 'slack-mcp', 'sentry-mcp']));
      expect(embedded.at(-1)).toMatch(/^Right now I am trying to send text messages to phones when an order ships\./);
      expect(embedded.at(-1)).not.toMatch(/Slack|GitHub|Sentry/);
      // Without the context's ranking, only the need's words are searched (Slack posts "messages").
      const needOnly = await ids(0);
      expect(needOnly[0]).toBe('twilio-sms');
      expect(needOnly).not.toContain('github-mcp');
      expect(needOnly).not.toContain('sentry-mcp');
    } finally {
      await store.close();
    }
  });
});

describe('catalog reloads', () => {
  type TestStore = Awaited<ReturnType<typeof openTestStore>>;
  const entries = (skills: Skill[], slugs: Record<string, string> = {}) =>
    skills.map((skill) => ({ skill, slug: slugs[skill.id] ?? slugify(skill.name) }));

  /** The small catalog ten times over (ids and names numbered), then twelve skills of one text (BM25 ties). */
  function catalogA(): Skill[] {
    const small = loadCatalog(SMALL_CATALOG);
    const out = Array.from({ length: 10 }, (_, n) =>
      small.map((s) => ({ ...s, id: `${s.id}-${n}`, name: `${s.name} ${n}` })),
    );
    const twins = Array.from({ length: 12 }, (_, n) => ({
      ...small[0]!,
      id: `twin-${n}`,
      name: 'Twin forecasts',
      description: 'Identical weather forecasts',
    }));
    return [...out.flat(), ...twins];
  }

  /**
   * A with skills removed, changed (description, name and so slug, tools, category, pricing; one only its slug),
   * added at the front, middle and end, and reordered (the twins reversed, one moved to the end).
   */
  function catalogB(a: Skill[]): { skills: Skill[]; slugs: Record<string, string> } {
    const gone = new Set(['weatherstack-3', 'postmark-7', 'slack-mcp-0', 'coingecko-9', 'deepl-5']);
    const changed: Record<string, (s: Skill) => Skill> = {
      'postmark-1': (s) => ({ ...s, description: `${s.description} Zebra deliveries.` }),
      'twilio-sms-2': (s) => ({ ...s, name: 'Twilio Messaging Two' }),
      'github-mcp-4': (s) => ({ ...s, tools: [{ name: 'open_zebra_issue', description: 'Files an issue' }] }),
      'ipinfo-6': (s) => ({ ...s, category: 'monitoring' }),
      'open-library-8': (s) => ({ ...s, pricing: { ...s.pricing, model: 'freemium' } }),
    };
    const added = (n: number): Skill => ({
      ...a[n]!,
      id: `zebra-${n}`,
      name: `Zebra ${a[n]!.name}`,
      description: `Zebra crossings and weather ${n}`,
    });
    const kept = a.filter((s) => !gone.has(s.id) && !s.id.startsWith('twin-') && s.id !== 'uptimerobot-0');
    const body = kept.map((s) => changed[s.id]?.(s) ?? s);
    const twins = a.filter((s) => s.id.startsWith('twin-')).reverse();
    const skills = [
      added(1),
      ...body.slice(0, 60),
      twins[0]!,
      added(2),
      ...body.slice(60, 100),
      ...twins.slice(1),
      ...body.slice(100),
      a.find((s) => s.id === 'uptimerobot-0')!,
      added(3),
    ];
    return { skills, slugs: { 'sentry-mcp-2': 'sentry-two' } };
  }

  /** Every read the app makes of the catalog, for `ids` and `names` (of both catalogs). */
  async function observed(skills: SkillsStore, ids: string[], names: string[]) {
    const queries = [
      'weather',
      'send email',
      'identical weather forecasts',
      'zebra',
      'payments crypto',
      'sms',
      'nothing',
    ];
    const filters = [{}, { category: 'communication' }, { type: 'mcp_server' }, { pricing: 'freemium' }];
    const searches = [];
    for (const q of queries)
      for (const f of filters)
        searches.push({
          q,
          f,
          top1: await skills.lexicalSearch(q, f, 1),
          top2: await skills.lexicalSearch(q, f, 2),
          top50: await skills.lexicalSearch(q, f, 50),
          rankings: await skills.lexicalRankings(q, f, 3),
          rare: await skills.holdsRareTerm(q),
          matching: [...((await skills.idsMatching(f)) ?? [])].sort(),
        });
    const found = [];
    for (const key of [...ids, ...names])
      found.push((await skills.findByIdOrSlug(key.toLowerCase(), slugify(key)))?.id);
    return {
      fingerprint: await skills.catalogFingerprint(),
      searches,
      found,
      many: Object.fromEntries(await skills.getMany(ids)),
      all: await skills.all(),
      count: await skills.count(),
      categories: await skills.countBy('category'),
      types: await skills.countBy('type'),
      sources: await skills.embeddingSources(),
      matrix: await skills.embeddingMatrix('m', 4),
    };
  }

  /**
   * `store`'s skills store on its database, each write of its transactions recorded with the rows it changed, and
   * `before` run before each transaction.
   */
  function recordingSkills(
    store: TestStore,
    before: () => Promise<void> = async () => {},
  ): { skills: SkillsStore; writes: Array<{ sql: string; changes: number }> } {
    const writes: Array<{ sql: string; changes: number }> = [];
    const recording = (q: Queryable): Queryable =>
      new Proxy(q, {
        get(target, prop) {
          if (prop === 'run')
            return async (sql: string, params?: readonly unknown[]) => {
              const result = await target.run(sql, params);
              writes.push({ sql, changes: result.changes });
              return result;
            };
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const db = new Proxy(store.db, {
      get(target, prop) {
        if (prop === 'tx')
          return async (fn: (q: Queryable) => Promise<unknown>, opts?: TxOptions) => {
            await before();
            return target.tx((q) => fn(recording(q)), opts);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const skills =
      store.dialect === 'postgres'
        ? createPostgresSkillsStore(db as PostgresDatabase)
        : createSkillsStore(db as unknown as Database);
    return { skills, writes };
  }
  /** Rows changed by the statements of `writes` that `statement` matches. */
  const rows = (writes: Array<{ sql: string; changes: number }>, statement: RegExp) =>
    writes.filter((w) => statement.test(w.sql)).reduce((n, w) => n + w.changes, 0);

  const vectors = (ids: string[]) =>
    ids.map((id, i) => ({
      skillId: id,
      textHash: `h-${id}`,
      vector: new Float32Array([1, i, 0, 0].map((x) => x / Math.hypot(1, i))),
    }));

  it('gives the semantic side every field a skill is embedded from, tools and examples included', async () => {
    const store = await openTestStore();
    try {
      const skills = catalogA().map((s, i) =>
        i % 3 === 0
          ? { ...s, tools: [{ name: 'get_forecast', description: `Forecast ${i}` }], examples: [`ask ${i}`] }
          : s,
      );
      await store.skills.replaceCatalog(entries(skills), 'fp-sources');
      expect(await store.skills.embeddingSources()).toEqual(
        skills.map(({ id, name, description, tags, category, tools, examples }) => ({
          id,
          name,
          description,
          tags,
          category,
          ...(tools && { tools }),
          ...(examples && { examples }),
        })),
      );
    } finally {
      await store.close();
    }
  });

  it("a reload that changes only a skill's examples searches the new ones and not the old", async () => {
    const store = await openTestStore();
    try {
      const a = catalogA().map((s) => (s.id === 'ipinfo-3' ? { ...s, examples: ['where is this quokka'] } : s));
      await store.skills.replaceCatalog(entries(a), 'fp-examples-1');
      const found = async (q: string) => (await store.skills.lexicalSearch(q, {}, 5)).map((h) => h.id);
      expect(await found('quokka')).toEqual(['ipinfo-3']);
      const b = a.map((s) => (s.id === 'ipinfo-3' ? { ...s, examples: ['where is this wombat'] } : s));
      expect(await store.skills.replaceCatalog(entries(b), 'fp-examples-2')).toBe(true);
      expect(await found('wombat')).toEqual(['ipinfo-3']);
      expect(await found('quokka')).toEqual([]);
      expect((await store.skills.embeddingSources()).find((s) => s.id === 'ipinfo-3')?.examples).toEqual([
        'where is this wombat',
      ]);
    } finally {
      await store.close();
    }
  });

  it('a reload to another catalog reads as that catalog imported from scratch, and back again', async () => {
    const a = catalogA();
    const b = catalogB(a);
    const ids = [...new Set([...a, ...b.skills].map((s) => s.id))];
    const names = [...new Set([...a, ...b.skills].map((s) => s.name))];
    const inB = new Set(b.skills.map((s) => s.id));
    const stores: TestStore[] = [];
    const open = async () => {
      const store = await openTestStore();
      stores.push(store);
      return store;
    };
    try {
      const reloaded = recordingSkills(await open());
      await reloaded.skills.replaceCatalog(entries(a), 'fp-a');
      await reloaded.skills.saveEmbeddings('m', vectors(a.map((s) => s.id)));
      // Read once, so the catalog and term statistics it keeps in memory are those of A.
      await observed(reloaded.skills, ids, names);

      reloaded.writes.length = 0;
      expect(await reloaded.skills.replaceCatalog(entries(b.skills, b.slugs), 'fp-b')).toBe(true);
      // By difference: the new skills and the changed ones (the slug too) are inserted, the others stay.
      expect(rows(reloaded.writes, /^INSERT INTO skills\b/)).toBe(9);
      expect(await reloaded.skills.replaceCatalog(entries(b.skills, b.slugs), 'fp-b')).toBe(false);

      const freshB = (await open()).skills;
      await freshB.replaceCatalog(entries(b.skills, b.slugs), 'fp-b');
      // The vectors of the skills still in the catalog are kept, whatever their text (its hash decides reuse).
      await freshB.saveEmbeddings(
        'm',
        vectors(a.map((s) => s.id)).filter((v) => inB.has(v.skillId)),
      );
      expect(await observed(reloaded.skills, ids, names)).toEqual(await observed(freshB, ids, names));

      expect(await reloaded.skills.replaceCatalog(entries(a), 'fp-a')).toBe(true);
      const freshA = (await open()).skills;
      await freshA.replaceCatalog(entries(a), 'fp-a');
      // Those of the skills that left for B were deleted then.
      await freshA.saveEmbeddings(
        'm',
        vectors(a.map((s) => s.id)).filter((v) => inB.has(v.skillId)),
      );
      expect(await observed(reloaded.skills, ids, names)).toEqual(await observed(freshA, ids, names));
    } finally {
      for (const s of stores) await s.close();
    }
  });

  it('a reload worked out while another instance reloads is worked out again in its transaction', async () => {
    const a = catalogA();
    const b = catalogB(a);
    const c = a.map((s) => (s.id.startsWith('deepl-') ? { ...s, description: 'Translations by another instance' } : s));
    const ids = [...new Set([...a, ...b.skills].map((s) => s.id))];
    const names = [...new Set([...a, ...b.skills].map((s) => s.name))];
    const store = await openTestStore();
    const other = await store.another();
    const fresh = await openTestStore();
    try {
      await store.skills.replaceCatalog(entries(a), 'fp-a');
      // The other instance's reload commits after this one compared B with A, before its transaction.
      let othersFirst: Promise<unknown> | undefined;
      const { skills } = recordingSkills(store, async () => {
        othersFirst ??= other.skills.replaceCatalog(entries(c), 'fp-c');
        await othersFirst;
      });
      expect(await skills.replaceCatalog(entries(b.skills, b.slugs), 'fp-b')).toBe(true);
      await fresh.skills.replaceCatalog(entries(b.skills, b.slugs), 'fp-b');
      expect(await observed(skills, ids, names)).toEqual(await observed(fresh.skills, ids, names));
    } finally {
      await other.db.close();
      await store.close();
      await fresh.close();
    }
  });

  it('compares a catalog larger than one page (2,000 rows) page by page', async () => {
    const small = loadCatalog(SMALL_CATALOG);
    const a = Array.from({ length: 2_500 }, (_, i) => {
      const skill = small[i % small.length]!;
      return { ...skill, id: `${skill.id}-${i}`, name: `${skill.name} ${i}` };
    });
    const b = a.filter((_, i) => i !== 10).map((s, i) => (i === 2_400 ? { ...s, description: 'Runes read' } : s));
    const store = await openTestStore();
    try {
      const { skills, writes } = recordingSkills(store);
      await skills.replaceCatalog(entries(a), 'fp-a');
      writes.length = 0;
      expect(await skills.replaceCatalog(entries(b), 'fp-b')).toBe(true);
      expect(rows(writes, /^INSERT INTO skills\b/)).toBe(1);
      expect((await skills.lexicalSearch('runes', {}, 5)).map((h) => h.id)).toEqual([b[2_400]!.id]);
      expect((await skills.all()).map((s) => s.id)).toEqual(b.map((s) => s.id));
    } finally {
      await store.close();
    }
  });

  it('a reload changing one skill writes that skill alone; one changing most of the catalog writes it whole', async () => {
    const store = await openTestStore();
    try {
      const { skills, writes } = recordingSkills(store);
      const a = catalogA();
      await skills.replaceCatalog(entries(a), 'fp-a');
      writes.length = 0;
      const one = a.map((s) => (s.id === 'deepl-4' ? { ...s, description: `${s.description} Now in Welsh.` } : s));
      expect(await skills.replaceCatalog(entries(one), 'fp-one')).toBe(true);
      // Its row deleted and inserted again; no other skill written, nor moved.
      expect(rows(writes, /^DELETE FROM skills\b/)).toBe(1);
      expect(rows(writes, /^INSERT INTO skills\b/)).toBe(1);
      expect(rows(writes, /^UPDATE skills SET position\b/)).toBe(0);
      expect((await skills.lexicalSearch('welsh', {}, 10)).map((h) => h.id)).toEqual(['deepl-4']);

      writes.length = 0;
      const most = one.map((s, i) => (i % 4 !== 0 ? { ...s, description: `${s.description} Rewritten.` } : s));
      expect(await skills.replaceCatalog(entries(most), 'fp-most')).toBe(true);
      expect(rows(writes, /^INSERT INTO skills\b/)).toBe(most.length);
      expect(await skills.count()).toBe(most.length);
    } finally {
      await store.close();
    }
  });

  it('ranks MCP servers by their best tool', async () => {
    const small = loadCatalog(SMALL_CATALOG);
    const github = small.find((s) => s.id === 'github-mcp')!;
    const job = { name: 'zia_add_urls_to_category', description: 'Adds URLs to a URL category' };
    // A: hundreds of tools, one of which does the job; B: two others; C: no tools, its description the job's words.
    const a = (tools: Skill['tools']): Skill => ({
      ...github,
      id: 'zscaler',
      name: 'Zscaler',
      category: 'monitoring',
      tools,
    });
    const fillers = Array.from({ length: 600 }, (_, i) => ({
      name: `zms_list_tag_namespace_${i}`,
      description: `Lists the tags of namespace ${i} with their values and owners`,
    }));
    const b: Skill = {
      ...github,
      id: 'bookmarks-mcp',
      name: 'Bookmarks',
      category: 'storage-state',
      tools: [
        { name: 'add_bookmark', description: 'Saves a page to read later' },
        { name: 'list_folders', description: 'Lists the folders of saved pages' },
      ],
    };
    const c: Skill = { ...small[0]!, id: 'shortly', name: 'Shortly', description: 'A url shortener by category' };
    const catalog = (zscaler: Skill) => [...small, zscaler, b, c];
    const store = await openTestStore();
    try {
      const { skills, writes } = recordingSkills(store);
      const ranked = async (filters: SkillFilters = {}) =>
        (await skills.lexicalRankings('add urls to a url category', filters, 10)).tools.map((h) => h.id);
      await skills.replaceCatalog(entries(catalog(a([...fillers, job]))), 'fp-1');
      expect(await ranked()).toEqual(['zscaler', 'bookmarks-mcp']);
      expect(await ranked({ category: 'storage-state' })).toEqual(['bookmarks-mcp']);
      expect(await ranked({ type: 'api' })).toEqual([]);
      // Words in more than 500 tools rank only beside a rarer one some tool holds; with filters, every word selects.
      const tools = async (text: string, filters: SkillFilters = {}) =>
        (await skills.lexicalRankings(text, filters, 10)).tools.map((h) => h.id);
      expect(await tools('list tags')).toEqual([]);
      expect(await tools('list tags', { category: 'monitoring' })).toEqual(['zscaler']);
      expect(await tools('list urls')).toEqual(['zscaler']);

      // By difference: A alone is written again, without the tool.
      writes.length = 0;
      await skills.replaceCatalog(entries(catalog(a(fillers))), 'fp-2');
      expect(rows(writes, /^INSERT INTO skills\b/)).toBe(1);
      expect(await ranked()).toEqual(['bookmarks-mcp']);
      await skills.replaceCatalog(entries(catalog(a([...fillers, job]))), 'fp-3');
      expect(await ranked()).toEqual(['zscaler', 'bookmarks-mcp']);

      // Whole: most skills change.
      writes.length = 0;
      const rewritten = catalog(a(fillers)).map((s) => ({ ...s, description: `${s.description} Rewritten.` }));
      await skills.replaceCatalog(entries(rewritten), 'fp-4');
      expect(rows(writes, /^INSERT INTO skills\b/)).toBe(rewritten.length);
      expect(await ranked()).toEqual(['bookmarks-mcp']);
    } finally {
      await store.close();
    }
  });
});
