import { readFileSync } from 'node:fs';

/**
 * The word lists the thorough tier reads (the package's `data/`, sources in `data/SOURCE.md`), lower case: first
 * names and surnames, everyday English words, technical words that are names elsewhere, and the gazetteer's places
 * and organisations (phrases of one or more words) and the words that end their names. Read once, on first use.
 */
export interface Lexicon {
  firstNames: ReadonlySet<string>;
  surnames: ReadonlySet<string>;
  common: ReadonlySet<string>;
  technical: ReadonlySet<string>;
  /** Countries, cities, regions, companies and teams (norway, kuala lumpur, goldman sachs). */
  places: ReadonlySet<string>;
  /** Words that end a place's or an organisation's name (park, falls, inc, orchestra). */
  placeEnds: ReadonlySet<string>;
}

const read = (name: string): Set<string> => {
  const text = readFileSync(new URL(`../../data/${name}`, import.meta.url), 'utf8');
  return new Set(text.split('\n').filter((line) => line.length > 0 && !line.startsWith('#')));
};

/** `data/gazetteer.txt`: `<kind>\t<phrase>` lines, split into names (place, org) and name endings (*-word). */
function gazetteer(): Pick<Lexicon, 'places' | 'placeEnds'> {
  const places = new Set<string>();
  const placeEnds = new Set<string>();
  for (const line of read('gazetteer.txt')) {
    const [kind, phrase] = line.split('\t');
    (kind.endsWith('-word') ? placeEnds : places).add(phrase);
  }
  return { places, placeEnds };
}

let loaded: Lexicon | undefined;

export function lexicon(): Lexicon {
  loaded ??= {
    firstNames: read('first-names.txt'),
    surnames: read('surnames.txt'),
    common: read('common-words.txt'),
    technical: read('tech-terms.txt'),
    ...gazetteer(),
  };
  return loaded;
}
