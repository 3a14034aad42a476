// Builds ../data/gazetteer.txt, the places and organisations the thorough tier never takes for a person, from
// compromise 14.17.0 (MIT) unpacked (`npm pack compromise@14.17.0`, `tar xzf`) under the directory given:
//   <dir>/compromise/package
// Each line is `<kind>\t<lower-case phrase>`:
//   place     compromise's lexicon entries tagged Country, City or Region (norway, kuala lumpur, bavaria)
//   org       entries tagged Organization or SportsTeam (goldman sachs, ikea, boston celtics)
//   org-word  its words that end an organisation's name (inc, ltd, orchestra, university)
//   place-word its words that end a place's name (park, falls, bridge, street)
// Entries compromise also tags as a person's name (austin, jordan, sydney: Person, FirstName, LastName...) are left
// out: there it judged the name more likely.
// Usage: node packages/scrub/scripts/build-gazetteer.mjs <dir>
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: build-gazetteer.mjs <dir with compromise/package>');
const nlp = createRequire(import.meta.url)(join(dir, 'compromise/package/builds/three/compromise-three.cjs'));
const { one, two } = nlp.model();

const PERSON_TAGS = new Set(['Person', 'FirstName', 'LastName', 'MaleName', 'FemaleName', 'Honorific']);
const KINDS = { Country: 'place', City: 'place', Region: 'place', Organization: 'org', SportsTeam: 'org' };
/** Letters and spaces only, two letters or more (no `at&t`, `7 eleven`, `u2`, abbreviations like `st`). */
const PLAIN = /^\p{L}[\p{L} '-]*\p{L}$/u;

const lines = new Set();
for (const [phrase, tag] of [...Object.entries(one.lexicon), ...Object.entries(one.frozenLex)]) {
  const tags = Array.isArray(tag) ? tag : [tag];
  if (tags.some((t) => PERSON_TAGS.has(t)) || !PLAIN.test(phrase)) continue;
  for (const t of tags) if (KINDS[t]) lines.add(`${KINDS[t]}\t${phrase}`);
}
for (const w of Object.keys(two.orgWords)) if (PLAIN.test(w)) lines.add(`org-word\t${w}`);
for (const w of Object.keys(two.placeWords)) if (PLAIN.test(w)) lines.add(`place-word\t${w}`);

const header = '# Built by scripts/build-gazetteer.mjs from compromise 14.17.0 (MIT); see SOURCE.md\n';
writeFileSync(new URL('../data/gazetteer.txt', import.meta.url), `${header}${[...lines].sort().join('\n')}\n`);
console.log(`${lines.size} entries`);
