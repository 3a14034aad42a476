import type { Skill } from '@axle/sdk';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/catalog/load.js';
import { slugify } from '../src/catalog/mapping.js';
import { quantizeInto } from '../src/domain/quantize.js';
import { bestPassageScores, MAX_PASSAGES, passageIndex, skillPassages } from '../src/search/passages.js';
import type { SemanticIndex } from '../src/search/semantic-index.js';
import { createSkillSearch } from '../src/services/skill-search.js';
import { Database } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import { createSkillsStore, type SkillsStore } from '../src/store/skills.js';
import { SMALL_CATALOG } from './search-helpers.js';

const DIM = 16;
const unit = (...hot: number[]) => {
  const v = new Float32Array(DIM);
  for (const i of hot) v[i] = 1;
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

/** A ready semantic side whose hits and passage scores (none unless given) are given. */
const semantic = (hits: Array<{ id: string; score: number }>, passages: Record<string, number> = {}) =>
  ({
    state: () => 'ready',
    search: async () => ({ hits, vector: unit(0) }),
    passageScores: (_v: Float32Array, ids: readonly string[]) =>
      new Map(Object.entries(passages).filter(([id]) => ids.includes(id))),
  }) as unknown as SemanticIndex;

/** A SQLite skills store, in a folder of its own, holding `skills`; `close` removes it. */
async function storeOf(skills: Skill[], slug: (skill: Skill) => string = (skill) => slugify(skill.name)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-rerank-'));
  const db = await Database.open(path.join(dir, 'axle.db'));
  await migrate(db);
  const repo = createSkillsStore(db);
  await repo.replaceCatalog(
    skills.map((skill) => ({ skill, slug: slug(skill) })),
    'fp',
  );
  return {
    repo,
    close: async () => {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('passages', () => {
  it('are the examples, the tools (names as words) and the description: its sentences when it has several, else itself', () => {
    expect(
      skillPassages({
        description: 'Manage your tasks in one place. Sync them with every calendar you use.',
        tools: [{ name: 'create_task', description: 'Create a task' }],
      }),
    ).toEqual([
      'create task: Create a task',
      'Manage your tasks in one place.',
      'Sync them with every calendar you use.',
    ]);
    expect(skillPassages({ description: ' One sentence only, whatever its length. ' })).toEqual([
      'One sentence only, whatever its length.',
    ]);
    expect(skillPassages({ description: 'Weather API' })).toEqual(['Weather API']);
    // One sentence long enough and a fragment: the description as a whole, not the sentence without the fragment.
    expect(skillPassages({ description: 'Forecasts for any city on Earth. Free.' })).toEqual([
      'Forecasts for any city on Earth. Free.',
    ]);
    expect(
      skillPassages({ description: 'Make a task.', tools: [{ name: 'make_task', description: 'Make a task.' }] }),
    ).toEqual(['make task: Make a task.', 'Make a task.']);
    expect(skillPassages({ description: '  ' })).toEqual([]);
    const many = Array.from({ length: 80 }, (_, i) => ({ name: `tool_${i}`, description: '' }));
    expect(skillPassages({ description: '', tools: many })).toHaveLength(MAX_PASSAGES);
    // Examples come first, so a server with many tools keeps them within the bound.
    const withExamples = skillPassages({ description: 'Tasks.', tools: many, examples: ['add a to-do for tomorrow'] });
    expect(withExamples[0]).toBe('add a to-do for tomorrow');
    expect(withExamples).toHaveLength(MAX_PASSAGES);
  });

  it('score each skill by its best passage, among the skills asked for', () => {
    const hashes = ['h0', 'h1', 'h01'];
    const vectors = [unit(0), unit(1), unit(0, 1)];
    const codes = new Int8Array(hashes.length * DIM);
    const scales = new Float32Array(hashes.length);
    vectors.forEach((v, i) => {
      scales[i] = quantizeInto(v, codes, i * DIM);
    });
    const passages = [
      { owner: 'a', hash: 'h0' },
      { owner: 'a', hash: 'h1' },
      { owner: 'b', hash: 'h01' },
      // A passage the index lacks is no row.
      { owner: 'c', hash: 'unknown' },
    ];
    const p = passageIndex(hashes, { codes, scales }, DIM, passages);
    const best = bestPassageScores(p, unit(1), ['a', 'b', 'a', 'c', 'none']);
    expect([...best.keys()]).toEqual(['a', 'b']);
    expect(best.get('a')).toBeCloseTo(1, 1);
    expect(best.get('b')).toBeCloseTo(Math.SQRT1_2, 1);
    expect([...bestPassageScores(p, unit(1), ['b']).keys()]).toEqual(['b']);
    expect(bestPassageScores(p, unit(1), ['none']).size).toBe(0);
  });

  it('hold a passage that skills share once, and score it for each of them', () => {
    // Three skills share one example; each also has one of its own: four rows, not six.
    const hashes = ['shared', 'x', 'y', 'z'];
    const vectors = [unit(0), unit(1), unit(2), unit(1, 2)];
    const codes = new Int8Array(hashes.length * DIM);
    const scales = new Float32Array(hashes.length);
    vectors.forEach((v, i) => {
      scales[i] = quantizeInto(v, codes, i * DIM);
    });
    const passages = ['x', 'y', 'z'].flatMap((own, i) => [
      { owner: `s${i}`, hash: 'shared' },
      { owner: `s${i}`, hash: own },
      // Listed twice by one skill: still one of its rows.
      { owner: `s${i}`, hash: 'shared' },
    ]);
    const p = passageIndex(hashes, { codes, scales }, DIM, passages);
    expect(p.index.size).toBe(4);
    expect(p.rowsOf.get('s0')).toEqual([0, 1]);
    // Six rows of the candidates, four distinct, more than the kernel can list at once: each is scored once.
    const byShared = bestPassageScores(p, unit(0), ['s0', 's1', 's2']);
    for (const id of ['s0', 's1', 's2']) expect(byShared.get(id)).toBeCloseTo(1, 1);
    const byOwn = bestPassageScores(p, unit(2), ['s0', 's1', 's2']);
    expect(byOwn.get('s0')).toBeCloseTo(0, 1);
    expect(byOwn.get('s1')).toBeCloseTo(1, 1);
    expect(byOwn.get('s2')).toBeCloseTo(Math.SQRT1_2, 1);
  });
});

describe('passage rerank in fused search', () => {
  let repo: SkillsStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ repo, close } = await storeOf(loadCatalog(SMALL_CATALOG)));
  });
  afterAll(() => close());

  it('lifts a candidate whose best passage fits better than its whole text, and leaves the others in fused order', async () => {
    const hits = [
      { id: 'slack-mcp', score: 0.5 },
      { id: 'postmark', score: 0.45 },
      { id: 'twilio-sms', score: 0.4 },
    ];
    const query = { query: 'send a message', limit: 5 };
    const plain = await createSkillSearch({ repo, semantic: semantic(hits, {}), rerankWeight: 0 }).search(query);
    const none = await createSkillSearch({ repo, semantic: semantic(hits, {}) }).search(query);
    expect(none.results.map((r) => r.id)).toEqual(plain.results.map((r) => r.id));
    const last = plain.results.at(-1)!.id;
    const lifted = await createSkillSearch({
      repo,
      semantic: semantic(hits, { [last]: 0.95 }),
      rerankWeight: 5,
    }).search(query);
    expect(lifted.mode).toBe('fused');
    expect(lifted.results[0]!.id).toBe(last);
    const relevance = lifted.results.map((r) => r.relevance);
    expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
    // A passage no better than the whole text changes nothing.
    const flat = await createSkillSearch({
      repo,
      semantic: semantic(hits, { 'slack-mcp': 0.5 }),
      rerankWeight: 5,
    }).search(query);
    expect(flat.results.map((r) => r.id)).toEqual(plain.results.map((r) => r.id));
  });

  it('fuses the flat BM25 ranking (the record as one text) at its weight', async () => {
    const query = { query: 'weatherstack smtp', limit: 5 };
    const order = async (flatWeight: number) =>
      (
        await createSkillSearch({ repo, semantic: semantic([], {}), flatWeight, namesakePenalty: 0 }).search(query)
      ).results.map((r) => r.id);
    // Field weights put the name match first, the flat ranking the record holding the rarer word.
    expect(await order(0)).toEqual(['weatherstack', 'postmark']);
    expect(await order(5)).toEqual(['postmark', 'weatherstack']);
  });

  it('sends a candidate that holds a request word only in its name below the others, unless the request names it', async () => {
    const order = async (query: string, namesakePenalty?: number) =>
      (
        await createSkillSearch({ repo, semantic: semantic([], {}), flatWeight: 0, namesakePenalty }).search({
          query,
          limit: 5,
        })
      ).results.map((r) => r.id);
    expect(await order('weatherstack smtp', 0)).toEqual(['weatherstack', 'postmark']);
    expect(await order('weatherstack smtp')).toEqual(['postmark', 'weatherstack']);
    expect(await order('smtp or Weatherstack')).toEqual(['weatherstack', 'postmark']);
  });

  it('reads a lower-case product key as a name when the predicate calls it no ordinary word', async () => {
    const hits = [
      { id: 'github-mcp', score: 0.6 },
      { id: 'uptimerobot', score: 0.55 },
      { id: 'sentry-mcp', score: 0.3 },
    ];
    const order = async (query: string, ordinaryWord?: (w: string) => boolean) =>
      (
        await createSkillSearch({ repo, semantic: semantic(hits, {}), ordinaryWord }).search({ query, limit: 3 })
      ).results.map((r) => r.id);
    const ordinary = (w: string) => w === 'sentry';
    const none = () => false;
    // Capitalised, the request names Sentry; in lower case, without the predicate, nothing names it.
    expect((await order('Issues in Sentry'))[0]).toBe('sentry-mcp');
    expect((await order('issues in sentry'))[0]).toBe('github-mcp');
    expect((await order('issues in sentry', none))[0]).toBe('sentry-mcp');
    // An ordinary word names nothing; nor does a key whose record says none of the request words (a namesake).
    expect((await order('issues in sentry', ordinary))[0]).toBe('github-mcp');
    const smtp = async (ordinaryWord?: (w: string) => boolean) =>
      (
        await createSkillSearch({ repo, semantic: semantic([], {}), flatWeight: 0, ordinaryWord }).search({
          query: 'weatherstack smtp',
          limit: 5,
        })
      ).results.map((r) => r.id);
    expect(await smtp(none)).toEqual(['postmark', 'weatherstack']);
  });

  it('lifts the reranked candidates of the category most of the first five share, and nothing without a quorum', async () => {
    const query = { query: 'send text to a phone', limit: 10 };
    const search = (hits: Array<{ id: string; score: number }>, categoryBonus: number) =>
      createSkillSearch({ repo, semantic: semantic(hits, {}), categoryBonus, rerankWeight: 0 }).search(query);
    const messaging = [
      { id: 'stripe-payments', score: 0.5 },
      { id: 'deepl', score: 0.48 },
      { id: 'postmark', score: 0.45 },
      { id: 'slack-mcp', score: 0.4 },
    ];
    const plain = await search(messaging, 0);
    const lifted = await search(messaging, 1);
    const communication = plain.results.filter((r) => r.category === 'communication').map((r) => r.id);
    expect(communication.length).toBeGreaterThanOrEqual(3);
    expect(lifted.results.slice(0, communication.length).map((r) => r.id)).toEqual(communication);
    expect(lifted.results.map((r) => r.id)).not.toEqual(plain.results.map((r) => r.id));
    expect(lifted.results.map((r) => r.relevance).every((x) => x <= 1)).toBe(true);
    // Five first candidates from five categories: no category is voted, the order stays.
    const spread = [
      { id: 'weatherstack', score: 0.5 },
      { id: 'stripe-payments', score: 0.49 },
      { id: 'deepl', score: 0.48 },
      { id: 'sentry-mcp', score: 0.47 },
      { id: 'filesystem-mcp', score: 0.46 },
    ];
    const q = { query: 'nothing in common here', limit: 10 };
    const a = await createSkillSearch({ repo, semantic: semantic(spread, {}), categoryBonus: 0 }).search(q);
    const b = await createSkillSearch({ repo, semantic: semantic(spread, {}), categoryBonus: 1 }).search(q);
    expect(b.results.map((r) => r.id)).toEqual(a.results.map((r) => r.id));
  });
});

describe('coverage and near-duplicate servers in fused search', () => {
  let repo: SkillsStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const skills = loadCatalog(SMALL_CATALOG);
    const slack = skills.find((s) => s.id === 'slack-mcp')!;
    // Another server for the same product, whose record shares no word with the requests below.
    skills.push({ ...slack, id: 'mcp-server-slack', name: 'mcp-server-slack', description: 'Bridge', tags: [] });
    // Two voice APIs: the same words, one conversion each way.
    const deepl = skills.find((s) => s.id === 'deepl')!;
    skills.push(
      {
        ...deepl,
        id: 'voice-maker',
        name: 'Voice Maker',
        description: 'Speech synthesis: text to speech, speech in forty voices',
        tags: [],
      },
      { ...deepl, id: 'scribe', name: 'Scribe', description: 'Turns recorded speech into text', tags: [] },
    );
    ({ repo, close } = await storeOf(skills));
  });
  afterAll(() => close());

  const ids = (r: { results: Array<{ id: string }> }) => r.results.map((x) => x.id);
  // One Slack server first, its sibling last, unrelated records between.
  const hits = [
    { id: 'slack-mcp', score: 0.6 },
    { id: 'deepl', score: 0.5 },
    { id: 'postmark', score: 0.45 },
    { id: 'weatherstack', score: 0.4 },
    { id: 'mcp-server-slack', score: 0.3 },
  ];
  const query = { query: 'conversation history', limit: 10 };

  it('places the other servers of a product right below the first of them', async () => {
    // Without feedback, which would also lift the sibling (below).
    const apart = await createSkillSearch({ repo, semantic: semantic(hits), siblingGap: -1, feedbackWeight: 0 }).search(
      query,
    );
    expect(ids(apart)[0]).toBe('slack-mcp');
    expect(ids(apart).indexOf('mcp-server-slack')).toBeGreaterThan(1);
    const grouped = await createSkillSearch({ repo, semantic: semantic(hits), feedbackWeight: 0 }).search(query);
    expect(ids(grouped).slice(0, 2)).toEqual(['slack-mcp', 'mcp-server-slack']);
    const relevance = grouped.results.map((r) => r.relevance);
    expect(relevance).toEqual([...relevance].sort((a, b) => b - a));
  });

  it('ranks the words the first candidates share: a record that holds none of the request words rises', async () => {
    const plain = await createSkillSearch({ repo, semantic: semantic(hits), siblingGap: -1, feedbackWeight: 0 }).search(
      query,
    );
    const fed = await createSkillSearch({ repo, semantic: semantic(hits), siblingGap: -1 }).search(query);
    expect(ids(fed).indexOf('mcp-server-slack')).toBeLessThan(ids(plain).indexOf('mcp-server-slack'));
    expect(ids(fed)[0]).toBe('slack-mcp');
    expect(fed.results.every((r) => r.relevance <= 1)).toBe(true);
  });

  it('lifts the candidates whose records hold more of the request words', async () => {
    const hits = [
      { id: 'weatherstack', score: 0.6 },
      { id: 'deepl', score: 0.5 },
      { id: 'github-mcp', score: 0.45 },
    ];
    const query = { query: 'issue refunds on card payments', limit: 10 };
    const covered = await createSkillSearch({ repo, semantic: semantic(hits), coverageWeight: 5 }).search(query);
    // stripe-payments holds every word, github-mcp and sentry-mcp one (issues), weatherstack none.
    expect(ids(covered).slice(0, 3)).toEqual(['stripe-payments', 'github-mcp', 'sentry-mcp']);
    const plain = await createSkillSearch({ repo, semantic: semantic(hits), coverageWeight: 0 }).search(query);
    expect(ids(plain).indexOf('sentry-mcp')).toBeGreaterThan(ids(plain).indexOf('weatherstack'));
    expect(covered.results.every((r) => r.relevance <= 1)).toBe(true);
  });

  it('sends a candidate that names the conversion only the other way round below the others', async () => {
    const hits = [
      { id: 'voice-maker', score: 0.6 },
      { id: 'scribe', score: 0.4 },
    ];
    const query = { query: 'speech to text', limit: 10 };
    const plain = await createSkillSearch({ repo, semantic: semantic(hits), conversionPenalty: 0 }).search(query);
    expect(ids(plain)[0]).toBe('voice-maker');
    const directed = await createSkillSearch({ repo, semantic: semantic(hits) }).search(query);
    expect(ids(directed)[0]).toBe('scribe');
    expect(ids(directed)).toContain('voice-maker');
    expect(directed.results.every((r) => r.relevance >= 0 && r.relevance <= 1)).toBe(true);
    // However large the penalty, relevance stays within 0..1 (the response schema's bounds).
    const harsh = await createSkillSearch({ repo, semantic: semantic(hits), conversionPenalty: 5 }).search(query);
    expect(harsh.results.every((r) => r.relevance >= 0 && r.relevance <= 1)).toBe(true);
    expect(harsh.results.find((r) => r.id === 'voice-maker')?.relevance).toBe(0);
    // Asked the other way round, the same records trade places back.
    const reverse = await createSkillSearch({ repo, semantic: semantic(hits) }).search({
      ...query,
      query: 'text to speech',
    });
    expect(ids(reverse)[0]).toBe('voice-maker');
  });

  it("lifts a tool whose name performs the operation the request names, over the same product's other tools", async () => {
    const [base] = loadCatalog(SMALL_CATALOG);
    const tool = (name: string, description: string) => ({
      ...base!,
      id: slugify(name),
      name,
      description,
      tools: undefined,
    });
    const skills = [
      tool('create_group', 'Create a group in the directory'),
      tool('delete_group', 'Delete a group from the directory'),
    ];
    const tools = await storeOf(skills, (skill) => skill.id);
    try {
      const order = async (query: string, operationBonus?: number) =>
        ids(
          await createSkillSearch({ repo: tools.repo, semantic: semantic([]), operationBonus }).search({
            query,
            limit: 5,
          }),
        );
      // Neither record holds "get rid of": BM25 ranks both on "group" alone, the name decides.
      expect(await order('get rid of the group', 0)).toEqual(['create-group', 'delete-group']);
      expect(await order('get rid of the group')).toEqual(['delete-group', 'create-group']);
      expect(await order('add a group')).toEqual(['create-group', 'delete-group']);
    } finally {
      await tools.close();
    }
  });
});

describe('word senses in fused search', () => {
  let repo: SkillsStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const skills = loadCatalog(SMALL_CATALOG);
    const base = skills.find((s) => s.id === 'deepl')!;
    const record = (id: string, description: string, category: string) => ({
      ...base,
      id,
      name: id,
      description,
      category,
      tags: [],
    });
    // "events" on a stage, and three brokers the vocabulary's `message queue` -> kafka rabbitmq finds.
    skills.push(
      record('showtime', 'Search events, attractions or venues', 'data-processing'),
      record('bunny-broker', 'Connect to RabbitMQ', 'storage-state'),
      record('streams', 'Managed Kafka clusters', 'storage-state'),
      record('kafka-registry', 'Kafka schema registry', 'storage-state'),
    );
    ({ repo, close } = await storeOf(skills));
  });
  afterAll(() => close());

  const first = async (sensePenalty: number, hits: Array<{ id: string; score: number }> = []) =>
    (
      await createSkillSearch({ repo, semantic: semantic(hits), sensePenalty }).search({
        query: 'publish events to a message queue',
        limit: 5,
      })
    ).results[0]?.id;

  it('sends a candidate of the other sense than the vocabulary fixed below those of its sense', async () => {
    expect(await first(0)).toBe('showtime');
    expect(await first(0.1)).not.toBe('showtime');
  });
  it('leaves a candidate among the sentence model first ones where it is', async () => {
    expect(await first(0.1, [{ id: 'showtime', score: 0.6 }])).toBe('showtime');
  });
});

describe('the ranking of MCP servers by their best tool', () => {
  const base = loadCatalog(SMALL_CATALOG);
  const server = base.find((s) => s.id === 'github-mcp')!;
  // A server listing hundreds of tools, one of which does the job: its record is so long that BM25 over the whole
  // record ranks it low even on its own name.
  const many: Skill = {
    ...server,
    id: 'zscaler',
    name: 'Zscaler',
    description: 'Manage the Zscaler security cloud: internet access, private access and digital experience',
    tags: ['security', 'zero-trust'],
    tools: [
      ...Array.from({ length: 300 }, (_, i) => ({
        name: `zms_list_tag_namespace_${i}`,
        description: `Lists the tags of namespace ${i} in the microsegmentation service, with their values and owners`,
      })),
      { name: 'zia_add_urls_to_category', description: 'Adds URLs to a URL category' },
    ],
  };
  const api = (id: string, name: string, description: string): Skill => ({
    ...base.find((s) => s.id === 'weatherstack')!,
    id,
    name,
    description,
    tags: ['links'],
  });
  const skills = [
    ...base,
    many,
    api('short-link', 'Short Link', 'Shorten a long URL into a short link and sort your links by category'),
    api('url-preview', 'URL Preview', 'Preview any URL: its title, image and category'),
    // More skills matching the request's words than the rerank reads (DEFAULT_RERANK_DEPTH), as in a real catalog.
    ...Array.from({ length: 60 }, (_, i) =>
      api(`link-kit-${i}`, `Link Kit ${i}`, 'Shorten, expand and tag a URL, and file it under a category'),
    ),
  ];
  let repo: SkillsStore;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ repo, close } = await storeOf(skills));
  });
  afterAll(() => close());

  const order = async (query: string, toolWeight?: number) =>
    (await createSkillSearch({ repo, semantic: semantic([]), toolWeight }).search({ query, limit: 5 })).results.map(
      (r) => r.id,
    );

  it('ranks the server by the tool that fits, apart from its other tools', async () => {
    const { tools, fields } = await repo.lexicalRankings('add urls to a url category', {}, 10);
    expect(tools.map((t) => t.id)).toEqual(['zscaler']);
    expect(fields.findIndex((f) => f.id === 'zscaler')).toBeGreaterThan(fields.findIndex((f) => f.id === 'short-link'));
  });

  it('puts the server whose tool does the job first, which it is not without that ranking', async () => {
    const query = 'add urls to a url category';
    expect((await order(query))[0]).toBe('zscaler');
    expect((await order(query, 0))[0]).not.toBe('zscaler');
  });

  it('leaves a search that no tool matches as it was', async () => {
    expect(await order('weather forecast')).toEqual(await order('weather forecast', 0));
  });
});
