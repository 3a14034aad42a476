// What a catalog reload costs the writes made meanwhile, against a baseline build in the same run:
//   node bench/catalog-reload.js <baseline packages/server/dist/main.js>
// Each build's store (its dist/store/open.js, migrating a fresh database) imports the 20,000-skill catalog generated
// from the bundled one (bench/lib/generate.js), with a stored vector for every skill as a server that computed them
// has, then reloads it three times, as registry syncs do: one skill's description changed; one skill added
// mid-catalog (every position after it moves, as a synced server joining does); 1,000 descriptions changed. Meanwhile a
// probe write (one upsert in a transaction of its own, as an unlock's or a sign-in's) runs every PROBE_MS: its
// longest wait (from when it was due) is what a write waited for the reload. On SQLite and on PostgreSQL
// (bench/lib/postgres.js), the builds alternating, BENCH_ROUNDS rounds (default 2).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadCatalog } from '../packages/server/dist/catalog/load.js';
import { slugify } from '../packages/server/dist/catalog/mapping.js';
import { generateCatalog, prng } from './lib/generate.js';
import { benchPostgres, POSTGRES_MISSING_BENCH } from './lib/postgres.js';
import { MAIN } from './lib/server.js';

const baselineMain = process.argv[2];
if (!baselineMain || !fs.existsSync(baselineMain)) {
  console.error('usage: node bench/catalog-reload.js <baseline packages/server/dist/main.js>');
  process.exit(2);
}
const LARGE = 20_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PROBE_MS = 5;
const DIM = 512;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const changed = (s, n) => ({ ...s, description: `${s.description} Revised ${n}.` });

// The catalogs in turn: A, then each reload's.
const a = generateCatalog(loadCatalog(), LARGE);
const one = a.map((s, i) => (i === LARGE / 2 ? changed(s, 1) : s));
const added = [
  ...one.slice(0, LARGE / 2),
  { ...one[LARGE / 2], id: 'bench-added', name: 'Bench added server' },
  ...one.slice(LARGE / 2),
];
const many = added.map((s, i) => (i % 20 === 7 ? changed(s, 2) : s));
const entries = (skills) => skills.map((skill) => ({ skill, slug: slugify(skill.name) }));
const first = entries(a);
const steps = [
  ['one skill changed', entries(one)],
  ['one skill added mid-catalog', entries(added)],
  ['1,000 skills changed', entries(many)],
];

/** A random unit vector a skill, as a server that computed the catalog's vectors stores them. */
function vectors(skills) {
  const rand = prng(7);
  return skills.map((s) => {
    const v = Float32Array.from({ length: DIM }, () => rand() - 0.5);
    const norm = Math.hypot(...v);
    return { skillId: s.id, textHash: `bench-${s.id}`, vector: v.map((x) => x / norm) };
  });
}

/** Runs `reload` while a probe write runs every PROBE_MS: the reload's ms and the longest probe's. */
async function timed(db, reload) {
  let done = false;
  let longest = 0;
  const probes = (async () => {
    for (let i = 0; !done; i++) {
      // From when it was due: a write arriving while the event loop is busy waits too.
      const due = performance.now() + PROBE_MS;
      await sleep(PROBE_MS);
      await db.tx((q) =>
        q.run(
          "INSERT INTO meta (key, value) VALUES ('bench_probe', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          [String(i)],
        ),
      );
      longest = Math.max(longest, performance.now() - due);
    }
  })();
  const t0 = performance.now();
  await reload();
  const ms = performance.now() - t0;
  done = true;
  await probes;
  return { ms, wait: longest };
}

/** One build's figures on a fresh database: the first import, then each step's reload and longest write wait. */
async function measure(build, databaseUrl) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'axle-catalog-reload-'));
  const { openStore } = await import(pathToFileURL(path.join(path.dirname(build), 'store/open.js')).href);
  const store = await openStore({ databaseUrl, dataDir, now: Date.now });
  try {
    const out = [await timed(store.db, () => store.skills.replaceCatalog(first, 'a'))];
    await store.skills.saveEmbeddings('bench', vectors(a));
    for (const [i, [, catalog]] of steps.entries()) {
      out.push(await timed(store.db, () => store.skills.replaceCatalog(catalog, `step-${i}`)));
      if ((await store.skills.count()) !== catalog.length) throw new Error('the reload lost skills');
    }
    return out;
  } finally {
    await store.db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const builds = [
  ['baseline', baselineMain],
  ['this build', MAIN],
];
const pg = await benchPostgres();
if (!pg) console.log(POSTGRES_MISSING_BENCH);
const backends = [['SQLite', async () => undefined], ...(pg ? [['PostgreSQL', () => pg.fresh()]] : [])];
try {
  for (const [backend, database] of backends) {
    const runs = new Map(builds.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, main] of builds) runs.get(name).push(await measure(main, await database()));
    console.log(`${backend}, ${LARGE} skills, ${ROUNDS} rounds (reload ms / longest write wait ms, each round):`);
    for (const [i, step] of ['first import', ...steps.map(([label]) => label)].entries()) {
      console.log(`  ${step}`);
      for (const [name] of builds) {
        const r = runs.get(name).map((run) => run[i]);
        console.log(
          `    ${name.padEnd(10)} reload ${r.map((x) => x.ms.toFixed(0)).join(', ')}; write waited ${r.map((x) => x.wait.toFixed(0)).join(', ')}`,
        );
      }
    }
  }
} finally {
  await pg?.close();
}
