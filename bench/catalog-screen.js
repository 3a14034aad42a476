// The catalog screen (what a registry sync holds) against the injection screen with its off-task layer off (its
// base): how many of the bundled catalog's entries each flags (name and description, screened apart as a sync
// screens them), and how many of the tool-poisoning fixture's rounds. `node bench/catalog-screen.js [--list]`
// after `npx tsc -b`; --list prints what is flagged in the catalog and what is missed of the fixture.
import fs from 'node:fs';
import { screenCatalogText } from '../packages/server/dist/domain/screens/catalog-text.js';
import { screenInjection } from '../packages/server/dist/domain/screens/injection.js';

const list = process.argv.includes('--list');
const read = (path) => JSON.parse(fs.readFileSync(new URL(path, import.meta.url), 'utf8'));
const skills = read('../packages/server/catalog/skills.json');
const fixture = read('../packages/server/test/fixtures/tool-poisoning.json');

const screens = {
  'injection, off-task off': (texts) => {
    const rules = texts.flatMap((t) => screenInjection(t, { offTask: [] }).findings);
    return { held: rules.length > 0, rules: [...new Set(rules)] };
  },
  catalog: screenCatalogText,
};

for (const [name, screen] of Object.entries(screens)) {
  console.log(`# ${name}`);
  for (const type of ['mcp_server', 'api']) {
    const entries = skills.filter((s) => s.type === type);
    const held = entries.map((s) => [s, screen([s.name, s.description])]).filter(([, r]) => r.held);
    console.log(`catalog ${type}: ${held.length}/${entries.length} flagged`);
    if (list) for (const [s, r] of held) console.log(`  ${s.id} (${r.rules.join(', ')}): ${s.description}`);
  }
  for (const round of ['poisoned', 'second', 'blind', 'benign', 'benign_blind']) {
    const texts = fixture[round];
    const results = texts.map((t) => [t, screen([t])]);
    console.log(`fixture ${round}: ${results.filter(([, r]) => r.held).length}/${texts.length} flagged`);
    const shown = round.startsWith('benign') ? results.filter(([, r]) => r.held) : results.filter(([, r]) => !r.held);
    if (list) for (const [t] of shown) console.log(`  ${round.startsWith('benign') ? 'flagged' : 'missed'}: ${t}`);
  }
}
