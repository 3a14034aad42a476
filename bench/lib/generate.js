// Deterministic inputs for `npm run bench`: a large synthetic catalog recombined from the bundled
// one, and load-test queries. Same seed, same output.

/** mulberry32: a small seeded PRNG, returns floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const slug = (s) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '') || 'skill';

/**
 * The bundled skills followed by synthetic ones up to `size`. A synthetic skill takes its name from
 * words of two skills' names, its description from the first half of one description and the
 * second half of another, tags from both, and the rest (category, type, connection, pricing,
 * quality) from the first: realistic vocabulary and lengths, text no real skill has.
 */
export function generateCatalog(bundled, size, seed = 20_000) {
  const rand = prng(seed);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const words = (s) => s.split(/\s+/).filter(Boolean);
  const out = [...bundled];
  const ids = new Set(bundled.map((s) => s.id));
  for (let n = 0; out.length < size; n++) {
    const a = pick(bundled);
    const b = pick(bundled);
    const name = `${pick(words(a.name.replace(/[/_-]+/g, ' ')))} ${pick(words(b.name.replace(/[/_-]+/g, ' ')))}`;
    const da = words(a.description);
    const db = words(b.description);
    const description = [...da.slice(0, Math.ceil(da.length / 2)), ...db.slice(Math.floor(db.length / 2))].join(' ');
    const tags = [...new Set([...a.tags, ...b.tags.filter(() => rand() < 0.5)])];
    let id = `${slug(name)}-${n.toString(36)}`;
    while (ids.has(id)) id += 'x';
    ids.add(id);
    out.push({ ...a, id, name, description, tags });
  }
  return out;
}

const OPENERS = [
  'I need',
  'find an API for',
  'an MCP server for',
  'my agent needs',
  'looking for a service that does',
  'which tool handles',
  'recommend something for',
  'free API to get',
  'how can I automate',
  'integrate',
  'best way to access',
  'a skill for',
];

/**
 * At least `count` distinct queries: the labelled evaluation queries, then opener + topic
 * phrases where topics are the catalog's tags and skill names. More distinct queries than the
 * server's query-embedding cache holds, so the benchmark pays for every embedding.
 */
export function loadQueries(labelled, skills, count, seed = 500) {
  const rand = prng(seed);
  const topics = [...new Set([...skills.flatMap((s) => s.tags), ...skills.map((s) => s.name.toLowerCase())])].filter(
    (t) => t.length > 2 && t !== 'mcp',
  );
  const out = new Set(labelled);
  while (out.size < count)
    out.add(`${OPENERS[Math.floor(rand() * OPENERS.length)]} ${topics[Math.floor(rand() * topics.length)]}`);
  // Shuffled, so consecutive requests do not share an opener.
  const list = [...out];
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}
