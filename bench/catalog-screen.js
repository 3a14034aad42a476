// The catalog screen (what a registry sync holds) against the injection screen with its off-task layer off (its
// base): how many of the bundled catalog's entries each flags (name and description, screened apart as a sync
// screens them), and how many of the tool-poisoning fixture's rounds; the catalog screen both by its regex rules
// alone and with its semantic layer (the sentence model in a worker, as `axle-server catalog sync` runs it).
// `node bench/catalog-screen.js [--list] [--heldout] [--independent] [--languages]` after `npx tsc -b`; --list
// prints what is flagged in the catalog and what is missed of the fixture; --heldout also scores the held-out round
// (test/fixtures/tool-poisoning-heldout.json), which nothing was tuned on; --independent also scores the set an
// independent tester wrote blind (test/fixtures/tool-poisoning-independent.json), likewise never tuned on;
// --languages the blind set in other languages (test/fixtures/tool-poisoning-multilingual.json), likewise.
import fs from 'node:fs';
import { directedSentences } from '../packages/server/dist/domain/screens/catalog-semantic.js';
import { screenCatalogText } from '../packages/server/dist/domain/screens/catalog-text.js';
import { screenInjection } from '../packages/server/dist/domain/screens/injection.js';
import { EmbedderClient } from '../packages/server/dist/search/embedder.js';
import { createCatalogScreen } from '../packages/server/dist/services/catalog-screen.js';

const list = process.argv.includes('--list');
const heldout = process.argv.includes('--heldout');
const independent = process.argv.includes('--independent');
const languages = process.argv.includes('--languages');
const read = (path) => JSON.parse(fs.readFileSync(new URL(path, import.meta.url), 'utf8'));
const skills = read('../packages/server/catalog/skills.json');
const fixture = read('../packages/server/test/fixtures/tool-poisoning.json');
const rounds = [
  'poisoned',
  'second',
  'blind',
  'dev',
  'languages',
  'benign',
  'benign_blind',
  'benign_dev',
  'benign_languages',
];
if (heldout) {
  const more = read('../packages/server/test/fixtures/tool-poisoning-heldout.json');
  Object.assign(fixture, { heldout: more.heldout, benign_heldout: more.benign_heldout });
  rounds.push('heldout', 'benign_heldout');
}
if (independent) {
  const more = read('../packages/server/test/fixtures/tool-poisoning-independent.json');
  Object.assign(fixture, { independent: more.independent, benign_independent: more.benign_independent });
  rounds.push('independent', 'benign_independent');
}
if (languages) {
  const more = read('../packages/server/test/fixtures/tool-poisoning-multilingual.json');
  Object.assign(fixture, { multilingual: more.multilingual, benign_multilingual: more.benign_multilingual });
  rounds.push('multilingual', 'benign_multilingual');
}

const embedder = new EmbedderClient();
await embedder.init();
const quiet = { warn() {}, info() {}, debug() {} };
const semantic = createCatalogScreen({
  model: { state: () => 'ready', embed: (texts) => embedder.embed(texts) },
  logger: quiet,
});
const screens = {
  'injection, off-task off': async (texts) => {
    const rules = texts.flatMap((t) => screenInjection(t, { offTask: [] }).findings);
    return { held: rules.length > 0, rules: [...new Set(rules)] };
  },
  'catalog, regex': async (texts) => screenCatalogText(texts),
  'catalog, regex + semantic': (texts) => semantic.screen(texts),
};

const directed = skills.map((s) => [s.name, s.description].flatMap(directedSentences).length);
console.log(
  `bundled catalog: ${directed.filter((n) => n > 0).length}/${skills.length} entries have a sentence written to the agent ` +
    `(${directed.reduce((a, n) => a + n, 0)} sentences), which the semantic layer embeds when the regex screen passes them`,
);
try {
  for (const [name, screen] of Object.entries(screens)) {
    console.log(`# ${name}`);
    const started = process.cpuUsage();
    const wall = performance.now();
    for (const type of ['mcp_server', 'api']) {
      const entries = skills.filter((s) => s.type === type);
      const held = [];
      for (const s of entries) {
        const r = await screen([s.name, s.description]);
        if (r.held) held.push([s, r]);
      }
      console.log(`catalog ${type}: ${held.length}/${entries.length} flagged`);
      if (list) for (const [s, r] of held) console.log(`  ${s.id} (${r.rules.join(', ')}): ${s.description}`);
    }
    const cpu = process.cpuUsage(started);
    console.log(
      `cost over the catalog: ${((performance.now() - wall) / skills.length).toFixed(3)} ms wall per entry, ` +
        `${((cpu.user + cpu.system) / 1000 / skills.length).toFixed(3)} ms of CPU (the process, the model's worker included)`,
    );
    for (const round of rounds) {
      const results = [];
      for (const t of fixture[round]) results.push([t, await screen([t])]);
      console.log(`fixture ${round}: ${results.filter(([, r]) => r.held).length}/${results.length} flagged`);
      const benign = round.startsWith('benign');
      const shown = results.filter(([, r]) => r.held === benign);
      if (list) for (const [t] of shown) console.log(`  ${benign ? 'flagged' : 'missed'}: ${t}`);
    }
  }
} finally {
  await embedder.close();
}
