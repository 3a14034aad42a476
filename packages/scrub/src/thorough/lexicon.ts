import { readFileSync } from 'node:fs';

/**
 * The word lists the thorough tier reads (the package's `data/`, sources in `data/SOURCE.md`), lower case: first
 * names and surnames, everyday English words, and technical words that are names elsewhere. Read once, on first use.
 */
export interface Lexicon {
  firstNames: ReadonlySet<string>;
  surnames: ReadonlySet<string>;
  common: ReadonlySet<string>;
  technical: ReadonlySet<string>;
}

const read = (name: string): Set<string> => {
  const text = readFileSync(new URL(`../../data/${name}`, import.meta.url), 'utf8');
  return new Set(text.split('\n').filter((line) => line.length > 0 && !line.startsWith('#')));
};

let loaded: Lexicon | undefined;

export function lexicon(): Lexicon {
  loaded ??= {
    firstNames: read('first-names.txt'),
    surnames: read('surnames.txt'),
    common: read('common-words.txt'),
    technical: read('tech-terms.txt'),
  };
  return loaded;
}
